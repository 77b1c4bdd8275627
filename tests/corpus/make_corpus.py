#!/usr/bin/env python3
"""Writes the hand-made part of the malformed-input corpus (tests/corpus/<reader>/...).

Each reader gets a few well-formed seed files, written here with made-up values in the shape of the public
formats (no trace data is copied), and the same mutations of each seed: empty, header only, truncated row,
a field that is not a number, negative and huge numbers, NaN and infinity, binary garbage, a UTF-8 BOM with
CRLF line ends, an unterminated quote, a 20 KB line, duplicated ids, rows out of order. Files named
`crash-*` or `finding-*` beside them were found by the libFuzzer targets in tests/fuzz (kept as found).
tst_corpus replays every file: each must end in a clear error naming the file, or in a valid load.

Usage: python3 tests/corpus/make_corpus.py   (rewrites the generated files; findings are left alone)
"""
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))

TRACE_SEEDS = {
    # format: (extension, text)
    "native": (".csv", "# schedstudio-trace v1\nid,submit,gpus,duration,model,user,vc,qos,gpu_spec,deadlines,cpu,mem_gb,iterations\n"
                        "7,100,0.5,60,resnet50,alice,vcA,LS,V100|T4,600:10|1200:5,4,16,1000\n8,130,2,3600,bert,,,,,,,,\n"
                        "9,160,8,120,vgg16,bob,vcB,BE,,900:10,,,\n"),
    "philly": (".csv", "timestamp,duration,num_gpus,gpu_time,cluster\n2017-10-09 07:01:55,66.0,1,66.0,vc1\n"
                        "2017-10-09 06:13:03,2951.0,2,5902.0,vc2\n2017-10-10 01:00:00,120.0,8,960.0,vc1\n"),
    "openb": (".csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                       "pod-0,12000,16384,1,1000,,LS,Running,0,12000,0\npod-1,6000,12288,1,460,,LS,Succeeded,400,9000,400\n"
                       "pod-2,8000,8192,2,1000,V100M16,BE,Running,900,20000,950\n"),
    "tiresias": (".csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n0,1,0,606,vgg19,164,30\n"
                          "1,8,30,133,vgg11,147,23\n2,2,45,900,resnet50,300,10\n"),
    "chronus": (".csv", "job_id,user,num_gpu,submit_time,iterations,model_name,duration,interval,expect_time_list,expect_value_list,best_effort,job_type\n"
                         "0,vc_a,1,5601,5530,mobilenet_v2,96,5,159-189-229-289,10-8-5-2,0,soft\n"
                         "1,vc_b,1,7505,760,alexnet,106,6,235,10,0,strict\n2,vc_c,4,12378,3495,resnet18,26,14,,,1,best\n"),
    "pollux": (".csv", "name,time,application,num_replicas,batch_size\ncifar10-0,107,cifar10,6,2048\n"
                        "deepspeech2-1,110,deepspeech2,6,320\nbert-2,300,bert,2,12\n"),
    "gavel": (".trace", "ResNet-18 (batch size 32)\tcmd\t-s\t1\t1000\t0.000000\t1\n"
                         "Transformer (batch size 128)\tcmd\t-step\t1\t5000\t30.000000\t4\n"
                         "LM (batch size 20)\tcmd\t-n\t1\t800\t60.000000\t2\n"),
    "csv": (".csv", "when,gpus,secs,vc\n0,1,60,a\n30,2,3600,b\n90,8,120,a\n"),  # read with --map submit=when,gpus=gpus,duration=secs,vc=vc
    "swf": (".swf", "; Version: 2.2\n; MaxProcs: 128\n    1        0     -1   1451  128     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1\n"
                     "    2     1460     -1   3726   64     -1    -1   -1     -1    -1 -1   1   1  -1 -1 -1 -1 -1\n"),
}

CLUSTER_SEEDS = {
    "native.json": '{"name": "tiny", "types": [{"name": "V100", "price_per_hour": 2.48}], "machines": '
                   '[{"name": "m0", "type": "V100", "gpus": 4, "switch": 0}, {"name": "m1", "type": "V100", "gpus": 4, "switch": 0}]}\n',
    "philly_machines": "machineId, number of GPUs, single GPU mem\nm0,2, 12GB\nm1,8, 24GB\nm2,8, 24GB\n",
    "openb_nodes.csv": "sn,cpu_milli,memory_mib,gpu,model\nnode-0,64000,262144,2,P100\nnode-1,96000,786432,8,V100M32\n",
    "tiresias_spec.csv": "num_switch,num_node_p_switch,num_gpu_p_node,num_cpu_p_node,mem_p_node\n1,16,4,128,254\n",
    "gavel_spec.json": '{\n    "gavel": ["36:36:36"]\n}\n',
}

JSON_SEEDS = {
    "object.json": '{"a": [1, 2.5, -3e2, true, false, null], "b": {"c": "d\\u00e9\\n"}}\n',
    "throughputs.json": '{"v100": {"(\'ResNet-18 (batch size 32)\', 1)": {"null": 12.5}}, '
                        '"k80": {"(\'ResNet-18 (batch size 32)\', 1)": {"null": 3.1}}}\n',
}

SCENARIO_SEED = ('{"format": "schedstudio-scenario", "version": 1, "name": "tiny", "trace": {"path": "trace.csv", '
                 '"format": "auto"}, "cluster": {"preset": "das-case"}, "perf": "ideal", "policies": ["fifo+firstfit"], '
                 '"seed": "1", "seeds": 1, "backfill": true}\n')


OASIS_SEED = ('{"format": "schedstudio-oasis", "version": 1, "name": "tiny", "slot_seconds": 600, "horizon": 20, '
              '"notes": ["hand-made"], "workers": [{"name": "w0", "capacity": {"gpu": 4, "cpu": 16, "mem": 64, "bw": 10000}}], '
              '"ps_servers": [{"name": "p0", "capacity": {"gpu": 0, "cpu": 16, "mem": 64, "bw": 10000}}], '
              '"jobs": [{"id": 0, "arrival": 1, "epochs": 2, "chunks": 2, "minibatches": 3, "tau": 0.5, "e": 10, "b": 500, '
              '"B": 1000, "w": {"gpu": 1, "cpu": 2, "mem": 8, "bw": 500}, "s": {"cpu": 2, "mem": 4, "bw": 1000}, '
              '"utility": {"kind": "sigmoid", "g1": 5, "g2": 0.5, "g3": 6}}, '
              '{"id": 1, "arrival": 3, "tau": 1, "b": 200, "B": 400, "w": {"gpu": 2, "cpu": 4, "mem": 16, "bw": 200}, '
              '"s": {"cpu": 1, "mem": 2, "bw": 400}, "utility": {"kind": "linear", "g1": 3, "g2": 0.1}}]}\n')

CHIP_SEED = ('{"format": "schedstudio-chip", "version": 1, "name": "tiny", "bandwidth_gbps": 8, "freq_mhz": 1000, '
             '"bytes_per_element": 1, "energy": {"dram_pj_per_byte": 100, "mac_pj": 0.5, "sram_pj_per_byte": 2, '
             '"static_pj_per_pe_us": 0.5}, "subs": [{"name": "ws0", "dataflow": "ws", "clusters": 8, "cluster_size": 64, '
             '"buffer_kib": 64}, {"name": "rs1", "dataflow": "rs", "clusters": 8, "cluster_size": 64, "buffer_kib": 64}]}\n')

NETWORK_SEED = ('{"format": "schedstudio-network", "version": 1, "name": "tiny", "origin": "hand-made", "layers": ['
                '{"name": "c1", "type": "conv", "K": 16, "C": 3, "Y": 32, "X": 32, "R": 3, "S": 3, "stride": 1}, '
                '{"name": "fc", "type": "fc", "K": 10, "C": 16, "Y": 1, "X": 1, "R": 1, "S": 1, "stride": 1}]}\n')

# a start state on das-case (machines m0..m7 of 4 GPUs)
START_STATE_SEED = ("# time=3600\njob_id,state,gpus,work,machines,model\n101,running,4,5400,m3,resnet50\n"
                    "102,running,8,600,m4;m5,\n103,queued,2,7200,,\n")


def mutations(text, binary_ok=True):
    """The same malformed variants of every seed: name -> bytes."""
    lines = text.splitlines(keepends=True)
    k = 0
    while k < len(lines) and lines[k].startswith(("#", ";")):
        k += 1  # comment lines belong to the header
    k = min(len(lines), k + (0 if text.lstrip().startswith(";") else 1))
    header, rows = "".join(lines[:k]), lines[k:]
    out = {}
    out["empty"] = b""
    out["header-only"] = header.encode()
    if rows:
        last = rows[-1]
        out["truncated-row"] = (header + "".join(rows[:-1]) + last[: max(1, len(last) // 2)]).encode()
        out["missing-newline-last-row"] = (header + "".join(rows)).rstrip("\n").encode()
        out["extra-fields"] = (header + rows[0].rstrip("\n") + ",x,y,z\n").encode()
        out["duplicate-rows"] = (header + rows[0] + rows[0] + rows[0]).encode()
        out["out-of-order"] = (header + "".join(reversed(rows))).encode()
    for name, rep in (("not-a-number", "abc"), ("negative", "-5"), ("huge", "1e400"), ("nan", "nan"), ("inf", "inf"),
                      ("overflow-int", "99999999999999999999999"), ("zero", "0"), ("blank-field", "")):
        if not rows:
            break
        # replace every numeric-looking field of the first data row
        sep = "\t" if "\t" in rows[0] else "," if "," in rows[0] else None
        fields = rows[0].rstrip("\n").split(sep)
        mutated = [rep if f.strip().replace(".", "", 1).lstrip("-").isdigit() else f for f in fields]
        out[name] = (header + (sep or "  ").join(mutated) + "\n" + "".join(rows[1:])).encode()
    out["bom-crlf"] = b"\xef\xbb\xbf" + text.replace("\n", "\r\n").encode()
    out["unterminated-quote"] = (header + '"' + "".join(rows)).encode()
    out["long-line"] = (header + "9" * 20000 + "\n").encode()
    out["nul-bytes"] = text.encode().replace(b",", b"\x00", 3)
    if binary_ok:
        out["garbage"] = bytes((i * 131 + 7) % 256 for i in range(4096))
        out["invalid-utf8"] = text.encode() + b"\xff\xfe\xc3\x28\n"
    return out


def json_mutations(text):
    out = {"empty": b"", "truncated": text[: len(text) // 2].encode(), "trailing-comma": text.replace("}", ",}", 1).encode(),
           "deep-nesting": b"[" * 5000 + b"]" * 5000, "deep-objects": b'{"a":' * 2000 + b"1" + b"}" * 2000,
           "unterminated-string": b'{"a": "abc', "bad-escape": b'{"a": "\\u12G4"}', "lone-surrogate": b'{"a": "\\ud800"}',
           "huge-number": b'{"a": 1e999999}', "nan": b'{"a": NaN}', "garbage": bytes((i * 97 + 3) % 256 for i in range(2048)),
           "duplicate-keys": b'{"a": 1, "a": 2}', "top-level-scalar": b"42", "control-char": b'{"a": "x\x01y"}',
           "nul": text.encode().replace(b":", b"\x00", 1), "long-string": b'{"a": "' + b"x" * 20000 + b'"}'}
    return out


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def clean(dirpath):
    """Remove generated files (everything but fuzzer findings)."""
    if not os.path.isdir(dirpath):
        return
    for root, _, files in os.walk(dirpath):
        for f in files:
            if not (f.startswith("crash-") or f.startswith("finding-")):
                os.remove(os.path.join(root, f))


def make_stores(d):
    """Project databases that are not (or no longer) SchedStudio stores."""
    import sqlite3
    clean(d)
    os.makedirs(d, exist_ok=True)
    write(os.path.join(d, "empty.db"), b"")
    write(os.path.join(d, "garbage.db"), bytes((i * 113 + 5) % 256 for i in range(8192)))
    write(os.path.join(d, "text.db"), b"this is not a database\n" * 20)
    other = os.path.join(d, "other-schema.db")
    con = sqlite3.connect(other)
    con.execute("CREATE TABLE runs (x TEXT)")
    con.execute("INSERT INTO runs VALUES ('not ours')")
    con.commit()
    con.close()
    version = os.path.join(d, "future-version.db")
    con = sqlite3.connect(version)
    con.execute("PRAGMA user_version = 999")
    con.execute("CREATE TABLE t (x)")
    con.commit()
    con.close()
    big = os.path.join(d, "truncated.db")
    con = sqlite3.connect(big)
    con.execute("CREATE TABLE runs (id INTEGER PRIMARY KEY, config TEXT)")
    con.executemany("INSERT INTO runs (config) VALUES (?)", [("x" * 200,)] * 400)
    con.commit()
    con.close()
    with open(big, "rb") as f:
        data = f.read()
    write(big, data[: len(data) // 2])
    hdr = bytearray(data[:4096])
    hdr[16:18] = b"\x00\x03"  # page size 3: invalid
    write(os.path.join(d, "bad-page-size.db"), bytes(hdr))


def binary_mutations(data, header_len):
    """Truncations, flipped bytes and a wrong version of a binary file whose first header_len bytes are its header."""
    out = {"empty": b"", "magic-only": data[:6], "bad-magic": b"XX" + data[2:min(len(data), 4096)]}
    for cut in (7, 8, 12, 16, 24, header_len // 2, header_len, header_len + 9, len(data) // 2, len(data) - 1):
        if 0 < cut < len(data):
            out["truncated-%d" % cut] = data[:cut]
    for pos in (6, 8, 9, 12, 13, 20, header_len // 2, header_len + 3, len(data) // 3, len(data) - 2):
        if 0 <= pos < len(data):
            b = bytearray(data)
            b[pos] ^= 0xFF
            out["flip-%d" % pos] = bytes(b[: max(pos + 64, min(len(b), 8192))]) if len(b) > 8192 else bytes(b)
    out["trailing-bytes"] = data + b"\x00garbage"
    out["huge-count"] = data[:header_len] + b"\xff" * 16 + data[header_len:header_len + 64]
    return out


def make_binary(root):
    """Decision logs (mutations of decisionlog/seed.sslog, made by
    `schedstudio-cli run --trace sample-traces/das-case.csv --cluster das-case --policy fifo+firstfit --seed 1
    --log-out tests/corpus/decisionlog/seed.sslog`) and checkpoints (of resources/checkpoints/das-das-case.sscp)."""
    seed = os.path.join(root, "decisionlog", "seed.sslog")
    with open(seed, "rb") as f:
        log = f.read()
    for f in os.listdir(os.path.dirname(seed)):
        if f != "seed.sslog" and not f.startswith(("crash-", "finding-")):
            os.remove(os.path.join(os.path.dirname(seed), f))
    for name, data in binary_mutations(log, 24).items():
        write(os.path.join(root, "decisionlog", name + ".sslog"), data)
    ckpt_src = os.path.join(root, "..", "..", "resources", "checkpoints", "das-das-case.sscp")
    with open(ckpt_src, "rb") as f:
        ck = f.read()
    header_len = 16 + int.from_bytes(ck[12:16], "little")
    clean(os.path.join(root, "checkpoint"))
    for name, data in binary_mutations(ck, header_len).items():
        if len(data) > 8192:  # keep the corpus small: the tensors are never reached past a bad header
            data = data[:8192]
        write(os.path.join(root, "checkpoint", name + ".sscp"), data)


def main():
    make_stores(os.path.join(HERE, "store"))
    make_binary(HERE)
    for sub in ("trace", "cluster", "json", "scenario", "throughputs", "oasis", "accel", "startstate"):
        clean(os.path.join(HERE, sub))
    for fmt, (ext, text) in TRACE_SEEDS.items():
        write(os.path.join(HERE, "trace", fmt, "seed" + ext), text.encode())
        for name, data in mutations(text).items():
            write(os.path.join(HERE, "trace", fmt, name + ext), data)
    for fname, text in CLUSTER_SEEDS.items():
        stem, ext = os.path.splitext(fname)
        write(os.path.join(HERE, "cluster", fname), text.encode())
        for name, data in (json_mutations(text) if ext == ".json" else mutations(text)).items():
            write(os.path.join(HERE, "cluster", stem + "-" + name + ext), data)
    for fname, text in JSON_SEEDS.items():
        stem, ext = os.path.splitext(fname)
        target = "throughputs" if stem == "throughputs" else "json"
        write(os.path.join(HERE, target, fname), text.encode())
        for name, data in json_mutations(text).items():
            write(os.path.join(HERE, target, stem + "-" + name + ext), data)
    # throughput tables that parse as JSON but not as a table
    for name, text in {"no-v100": '{"k80": {"(\'A\', 1)": {"null": 1.0}}}', "not-object": "[1, 2]",
                       "bad-key": '{"v100": {"A, 1": {"null": 1.0}}}', "string-rate": '{"v100": {"(\'A\', 1)": {"null": "fast"}}}',
                       "negative-rate": '{"v100": {"(\'A\', 1)": {"null": -3}}, "k80": {"(\'A\', 1)": {"null": -1}}}',
                       "zero-scale": '{"v100": {"(\'A\', 0)": {"null": 1.0}}}'}.items():
        write(os.path.join(HERE, "throughputs", name + ".json"), text.encode())
    write(os.path.join(HERE, "scenario", "seed.scenario.json"), SCENARIO_SEED.encode())
    for name, data in json_mutations(SCENARIO_SEED).items():
        write(os.path.join(HERE, "scenario", name + ".scenario.json"), data)
    for name, text in {"wrong-format": SCENARIO_SEED.replace("schedstudio-scenario", "other"),
                       "future-version": SCENARIO_SEED.replace('"version": 1', '"version": 99'),
                       "unknown-policy": SCENARIO_SEED.replace("fifo+firstfit", "no-such-policy"),
                       "unknown-preset": SCENARIO_SEED.replace("das-case", "no-such-preset"),
                       "seeds-negative": SCENARIO_SEED.replace('"seeds": 1', '"seeds": -4'),
                       "seeds-huge": SCENARIO_SEED.replace('"seeds": 1', '"seeds": 1e12'),
                       "bad-perf": SCENARIO_SEED.replace('"ideal"', '"cross_machine=abc"'),
                       "policies-not-list": SCENARIO_SEED.replace('["fifo+firstfit"]', '"fifo+firstfit"'),
                       "trace-missing": SCENARIO_SEED.replace('"trace": {"path": "trace.csv", "format": "auto"}, ', ""),
                       "seed-text": SCENARIO_SEED.replace('"seed": "1"', '"seed": "one"')}.items():
        write(os.path.join(HERE, "scenario", name + ".scenario.json"), text.encode())

    # OASiS scenarios, accelerator chips and networks, start states: seeds, the generic mutations and the
    # semantic errors each reader names (job and field, file and line)
    write(os.path.join(HERE, "oasis", "seed.json"), OASIS_SEED.encode())
    for name, data in json_mutations(OASIS_SEED).items():
        write(os.path.join(HERE, "oasis", name + ".json"), data)
    for name, text in {"increasing-utility": OASIS_SEED.replace('"g2": 0.5', '"g2": -0.5'),
                       "zero-bandwidth": OASIS_SEED.replace('"b": 500', '"b": 0'),
                       "b-over-B": OASIS_SEED.replace('"b": 200', '"b": 900'),
                       "worker-too-big": OASIS_SEED.replace('"gpu": 2, "cpu": 4', '"gpu": 64, "cpu": 4'),
                       "no-workers": OASIS_SEED.replace('"workers": [{"name": "w0", "capacity": {"gpu": 4, "cpu": 16, "mem": 64, "bw": 10000}}]', '"workers": []'),
                       "huge-horizon": OASIS_SEED.replace('"horizon": 20', '"horizon": 1e12'),
                       "negative-arrival": OASIS_SEED.replace('"arrival": 3', '"arrival": -3'),
                       "arrival-past-horizon": OASIS_SEED.replace('"arrival": 3', '"arrival": 500'),
                       "huge-epochs": OASIS_SEED.replace('"epochs": 2', '"epochs": 1e15'),
                       "duplicate-id": OASIS_SEED.replace('{"id": 1,', '{"id": 0,'),
                       "unknown-utility": OASIS_SEED.replace('"linear"', '"cubic"'),
                       "wrong-format": OASIS_SEED.replace("schedstudio-oasis", "other")}.items():
        write(os.path.join(HERE, "oasis", name + ".json"), text.encode())
    for kind, seed in (("chip", CHIP_SEED), ("network", NETWORK_SEED)):
        write(os.path.join(HERE, "accel", kind + "-seed.json"), seed.encode())
        for name, data in json_mutations(seed).items():
            write(os.path.join(HERE, "accel", kind + "-" + name + ".json"), data)
    for name, text in {"chip-no-bandwidth": CHIP_SEED.replace('"bandwidth_gbps": 8', '"bandwidth_gbps": 0'),
                       "chip-no-subs": CHIP_SEED[:CHIP_SEED.index('"subs"')] + '"subs": []}\n',
                       "chip-bad-dataflow": CHIP_SEED.replace('"dataflow": "rs"', '"dataflow": "systolic"'),
                       "chip-huge-clusters": CHIP_SEED.replace('"clusters": 8', '"clusters": 1e12'),
                       "chip-negative-buffer": CHIP_SEED.replace('"buffer_kib": 64}]', '"buffer_kib": -64}]'),
                       "network-unknown-type": NETWORK_SEED.replace('"type": "fc"', '"type": "lstm"'),
                       "network-negative-dim": NETWORK_SEED.replace('"K": 16', '"K": -16'),
                       "network-zero-stride": NETWORK_SEED.replace('"stride": 1}, {', '"stride": 0}, {'),
                       "network-huge-dims": NETWORK_SEED.replace('"Y": 32, "X": 32', '"Y": 1e9, "X": 1e9'),
                       "network-no-layers": NETWORK_SEED[:NETWORK_SEED.index('"layers"')] + '"layers": []}\n'}.items():
        write(os.path.join(HERE, "accel", name + ".json"), text.encode())
    write(os.path.join(HERE, "startstate", "seed.csv"), START_STATE_SEED.encode())
    for name, data in mutations(START_STATE_SEED).items():
        write(os.path.join(HERE, "startstate", name + ".csv"), data)
    for name, text in {"unknown-machine": START_STATE_SEED.replace(",m3,", ",m99,"),
                       "too-many-gpus": START_STATE_SEED.replace("101,running,4,", "101,running,16,"),
                       "overbooked": START_STATE_SEED.replace("102,running,8,600,m4;m5", "102,running,8,600,m3;m4"),
                       "bad-state": START_STATE_SEED.replace("queued", "sleeping"),
                       "duplicate-id": START_STATE_SEED.replace("103,", "101,"),
                       "bad-time": START_STATE_SEED.replace("time=3600", "time=soon")}.items():
        write(os.path.join(HERE, "startstate", name + ".csv"), text.encode())


if __name__ == "__main__":
    main()
