#!/opt/optcert-torch2/bin/python
"""optcert adapter: evaluate one of transformers' learning-rate schedules on the schedule family.

transformers' get_*_schedule* functions (transformers/optimization.py) return a
torch.optim.lr_scheduler.LambdaLR: lr = base_lr * lr_lambda(step), a closed form of the step
count. With one sample per step and base_lr = maxLr they express Megatron's schedule
(spec/schedule.md) where these agree (--schedule picks the function; every other case is
`unsupported`):
  constant              get_constant_schedule_with_warmup(W): decayStyle constant, a warmup
                        from initLr = 0 (or none)
  polynomial            get_polynomial_decay_schedule_with_warmup(W, D, lr_end = minLr,
                        power = 1): decayStyle linear, warmup from 0; transformers requires
                        maxLr > minLr
  cosine-min-lr         get_cosine_with_min_lr_schedule_with_warmup(W, D, min_lr = minLr):
                        decayStyle cosine, warmup from 0
  wsd                   get_wsd_schedule(0, S, num_training_steps = D, decay_type, min_lr_ratio
                        = minLr / maxLr): decayStyle WSD without warmup (transformers' warmup
                        starts from min_lr_ratio * maxLr, Megatron's from initLr), wsdStyle
                        linear, cosine or minus_sqrt (transformers' 1-sqrt)
The weight decay is the optimizer's constant weight_decay (endWd * wdMult); weight-decay
increments and invalid Megatron configurations are `unsupported`. Each point's lr is the
scheduler's after step(samples) (LambdaLR's get_lr at last_epoch = samples, the value its
step() sets after that many steps).

    /opt/optcert-torch2/bin/python conformance/adapters/transformers_schedule.py --schedule cosine-min-lr \\
        --vectors vectors/schedule-megatron/schedule-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import sys
import warnings
from importlib import metadata

import torch
from transformers import optimization as tro

from schedule_family import run_adapter

ADAPTER = "optcert transformers_schedule.py 1"
WSD_DECAY = {"linear": "linear", "cosine": "cosine", "minus_sqrt": "1-sqrt"}


def build(name, h, opt):
    """The LambdaLR of schedule `name` equivalent to the configuration h, or None."""
    init, peak, floor = (float.fromhex(h[k]) for k in ("initLr", "maxLr", "minLr"))
    warmup, decay, style = h["warmupSteps"], h["decaySteps"], h["decayStyle"]
    if h["wdStyle"] != "constant" or peak <= 0 or decay <= warmup or (warmup > 0 and init != 0):
        return None
    if name == "constant" and style == "constant":
        return tro.get_constant_schedule_with_warmup(opt, warmup)
    if name == "polynomial" and style == "linear" and peak > floor:
        return tro.get_polynomial_decay_schedule_with_warmup(opt, warmup, decay, lr_end=floor, power=1.0)
    if name == "cosine-min-lr" and style == "cosine":
        return tro.get_cosine_with_min_lr_schedule_with_warmup(opt, warmup, decay, min_lr=floor)
    if name == "wsd" and style == "WSD" and warmup == 0 and h["wsdStyle"] in WSD_DECAY:
        return tro.get_wsd_schedule(opt, 0, h["wsdDecaySteps"], num_training_steps=decay,
                                    decay_type=WSD_DECAY[h["wsdStyle"]], min_lr_ratio=floor / peak)
    return None


def main(argv):
    if len(argv) < 1 or not argv[0].startswith("--schedule="):
        print("transformers_schedule: first argument --schedule=constant|polynomial|cosine-min-lr|wsd",
              file=sys.stderr)
        return 2
    name = argv[0].split("=", 1)[1]
    if name not in ("constant", "polynomial", "cosine-min-lr", "wsd"):
        print(f"transformers_schedule: unknown schedule {name}", file=sys.stderr)
        return 2
    function = {"constant": "get_constant_schedule_with_warmup",
                "polynomial": "get_polynomial_decay_schedule_with_warmup",
                "cosine-min-lr": "get_cosine_with_min_lr_schedule_with_warmup",
                "wsd": "get_wsd_schedule"}[name]

    def run_case(h, t):
        # the transformers schedules take no configuration to reject: an invalid case (or a
        # negative position) is not theirs to run, and torch's SGD would refuse some of them
        # (a negative weight decay) before the schedule exists
        if t.get("result") != "valid" or any(p["samples"] < 0 for p in t["points"]):
            return "unsupported", None, None
        wd = float.fromhex(h["endWd"]) * float.fromhex(h["wdMult"])
        opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=float.fromhex(h["maxLr"]),
                              weight_decay=wd)
        s = build(name, h, opt)
        if s is None:
            return "unsupported", None, None
        lr = []
        for p in t["points"]:
            s.step(p["samples"])  # LambdaLR: last_epoch = samples, lr = base_lr * lambda(samples)
            lr.append(opt.param_groups[0]["lr"])
        return "ok", lr, [opt.param_groups[0]["weight_decay"]] * len(lr)

    return run_adapter("transformers_schedule", __doc__, run_case,
                       f"transformers.{function} (torch LambdaLR)",
                       f"transformers {metadata.version('transformers')}, torch {torch.__version__}",
                       ADAPTER, argv[1:])


if __name__ == "__main__":
    warnings.filterwarnings("ignore", category=UserWarning)  # LambdaLR.step(epoch) is deprecated
    sys.exit(main(sys.argv[1:]))
