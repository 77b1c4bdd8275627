#!/usr/bin/env python3
"""Writes the accelerator mode's network files (sample-traces/accel/networks/*.json) from the published
layer tables of each model (docs/FORMATS.md "Network files" describes the format; docs/ACCELERATOR.md §1 the
origins). Layers are listed in execution order; a residual block's projection shortcut is listed after its
block's main path (the mode runs a request's layers one after another)."""
import json
import os
import sys

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "sample-traces", "accel", "networks")


def L(name, type_, K, C, Y, X=1, R=1, S=1, stride=1, heads=1):
    d = {"name": name, "type": type_, "K": K, "C": C, "Y": Y, "X": X, "R": R, "S": S, "stride": stride}
    if heads != 1:
        d["heads"] = heads
    return d


def resnet50():
    layers = [L("conv1", "conv", 64, 3, 224, 224, 7, 7, 2)]
    size, cin = 56, 64  # after the 3x3/2 max pool
    for stage, (width, blocks) in enumerate([(64, 3), (128, 4), (256, 6), (512, 3)], start=2):
        for b in range(blocks):
            stride = 2 if (b == 0 and stage > 2) else 1
            p = f"conv{stage}_{b + 1}"
            layers.append(L(p + "a", "conv", width, cin, size, size, 1, 1, 1))
            layers.append(L(p + "b", "conv", width, width, size, size, 3, 3, stride))
            out = size // stride
            layers.append(L(p + "c", "conv", width * 4, width, out, out, 1, 1, 1))
            if b == 0:
                layers.append(L(p + "_proj", "conv", width * 4, cin, size, size, 1, 1, stride))
            cin, size = width * 4, out
    layers.append(L("fc", "fc", 1000, 2048, 1))
    return {"name": "resnet50", "origin": "He et al., Deep Residual Learning (CVPR 2016), Table 1, 50-layer; "
            "stride on the 3x3 conv as in torchvision's resnet50; 224x224 input, batch 1", "layers": layers}


def mobilenetv2():
    layers = [L("conv0", "conv", 32, 3, 224, 224, 3, 3, 2)]
    size, cin = 112, 32
    table = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]
    n = 0
    for t, c, reps, s in table:
        for i in range(reps):
            stride = s if i == 0 else 1
            n += 1
            hidden = cin * t
            if t != 1:
                layers.append(L(f"b{n}_expand", "conv", hidden, cin, size, size, 1, 1, 1))
            layers.append(L(f"b{n}_dw", "dwconv", hidden, hidden, size, size, 3, 3, stride))
            size = (size + stride - 1) // stride
            layers.append(L(f"b{n}_project", "conv", c, hidden, size, size, 1, 1, 1))
            cin = c
    layers.append(L("conv_last", "conv", 1280, 320, 7, 7, 1, 1, 1))
    layers.append(L("fc", "fc", 1000, 1280, 1))
    return {"name": "mobilenetv2", "origin": "Sandler et al., MobileNetV2 (CVPR 2018), Table 2, width 1.0; "
            "224x224 input, batch 1", "layers": layers}


def vgg16():
    cfg = [64, 64, "M", 128, 128, "M", 256, 256, 256, "M", 512, 512, 512, "M", 512, 512, 512, "M"]
    layers, size, cin, i = [], 224, 3, 0
    for v in cfg:
        if v == "M":
            size //= 2
            continue
        i += 1
        layers.append(L(f"conv{i}", "conv", v, cin, size, size, 3, 3, 1))
        cin = v
    layers += [L("fc6", "fc", 4096, 25088, 1), L("fc7", "fc", 4096, 4096, 1), L("fc8", "fc", 1000, 4096, 1)]
    return {"name": "vgg16", "origin": "Simonyan & Zisserman, Very Deep Convolutional Networks (ICLR 2015), "
            "Table 1 configuration D; 224x224 input, batch 1", "layers": layers}


def bert_base(seq=128):
    layers = []
    for i in range(12):
        p = f"enc{i + 1}_"
        layers += [L(p + "q", "fc", 768, 768, seq), L(p + "k", "fc", 768, 768, seq), L(p + "v", "fc", 768, 768, seq),
                   L(p + "qk", "matmul", seq, 64, seq, heads=12), L(p + "av", "matmul", 64, seq, seq, heads=12),
                   L(p + "out", "fc", 768, 768, seq), L(p + "ffn1", "fc", 3072, 768, seq),
                   L(p + "ffn2", "fc", 768, 3072, seq)]
    return {"name": "bert-base", "origin": "Devlin et al., BERT (NAACL 2019): BERT-base encoder, 12 layers, hidden "
            "768, 12 heads of 64, FFN 3072; sequence length 128, batch 1; embeddings, softmax and layer norms "
            "not modelled", "layers": layers}


def dlrm_mlp(batch=128):
    bottom = [13, 512, 256, 128]
    top = [479, 1024, 1024, 512, 256, 1]
    layers = [L(f"bottom{i + 1}", "fc", bottom[i + 1], bottom[i], batch) for i in range(len(bottom) - 1)]
    layers += [L(f"top{i + 1}", "fc", top[i + 1], top[i], batch) for i in range(len(top) - 1)]
    return {"name": "dlrm-mlp", "origin": "Naumov et al., DLRM (arXiv 1906.00091), MLPerf Criteo-terabyte "
            "configuration: bottom MLP 13-512-256-128, top MLP 479-1024-1024-512-256-1 (479 = 128 + 27*26/2 "
            "pairwise interactions); batch 128; embedding lookups not modelled", "layers": layers}


os.makedirs(OUT, exist_ok=True)
for net in (resnet50(), mobilenetv2(), vgg16(), bert_base(), dlrm_mlp()):
    doc = {"format": "schedstudio-network", "version": 1, **net}
    with open(os.path.join(OUT, net["name"] + ".json"), "w") as f:
        f.write("{\n")
        keys = [k for k in doc if k != "layers"]
        for k in keys:
            f.write(f"  {json.dumps(k)}: {json.dumps(doc[k])},\n")
        f.write('  "layers": [\n')
        f.write(",\n".join("    " + json.dumps(l) for l in doc["layers"]))
        f.write("\n  ]\n}\n")
    print(net["name"], len(net["layers"]), "layers")
