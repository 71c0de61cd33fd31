#!/opt/optcert-jax/bin/python
"""optcert adapter: evaluate optax's schedule functions on the schedule family.

optax schedules map a step count to a value in closed form; with one sample per step they
express Megatron's warmup + decay (spec/schedule.md) as:
  warmup                  linear_schedule(initLr, maxLr, warmupSteps)
  decayStyle constant     constant_schedule(maxLr) after the warmup
  decayStyle linear       linear_schedule(maxLr, minLr, decaySteps - warmupSteps)
  decayStyle cosine       warmup_cosine_decay_schedule(initLr, maxLr, warmupSteps, decaySteps,
                          end_value = minLr) (cosine_decay_schedule alone without a warmup)
joined with join_schedules([...], [warmupSteps]); the weight decay is optax's constant
`weight_decay` (endWd * wdMult). Inverse square root, WSD, weight-decay increments and the
invalid Megatron configurations have no optax counterpart (`unsupported`). The family is
binary64 (SCHED-PROF-MEGATRON), so jax runs with jax_enable_x64; optax's default float32
evaluation is a binary32 computation, outside that class.

    /opt/optcert-jax/bin/python conformance/adapters/optax_schedule.py \\
        --vectors vectors/schedule-megatron/schedule-megatron.json --out results.safetensors
Exit status: 0 on success, 2 on malformed input.
"""
import sys
from importlib import metadata

import jax

jax.config.update("jax_enable_x64", True)
import optax  # noqa: E402  (after the x64 switch)

from schedule_family import run_adapter  # noqa: E402

ADAPTER = "optcert optax_schedule.py 1"


def schedule(h):
    """The optax schedule equivalent to the configuration h, or None."""
    init, peak, floor = (float.fromhex(h[k]) for k in ("initLr", "maxLr", "minLr"))
    warmup, decay, style = h["warmupSteps"], h["decaySteps"], h["decayStyle"]
    if style not in ("constant", "linear", "cosine") or h["wdStyle"] != "constant":
        return None
    if decay <= warmup or peak <= 0:
        return None
    if style == "cosine":
        if warmup > 0:
            return optax.schedules.warmup_cosine_decay_schedule(init, peak, warmup, decay, floor)
        return optax.schedules.cosine_decay_schedule(peak, decay, alpha=floor / peak)
    after = (optax.schedules.constant_schedule(peak) if style == "constant" else
             optax.schedules.linear_schedule(peak, floor, decay - warmup))
    if warmup == 0:
        return after
    return optax.schedules.join_schedules(
        [optax.schedules.linear_schedule(init, peak, warmup), after], [warmup])


def run_case(h, t):
    f = schedule(h) if t.get("result") == "valid" else None
    if f is None or any(p["samples"] < 0 for p in t["points"]):
        return "unsupported", None, None
    wd = float.fromhex(h["endWd"]) * float.fromhex(h["wdMult"])
    lr = [float(f(jax.numpy.asarray(p["samples"], dtype=jax.numpy.int64))) for p in t["points"]]
    return "ok", lr, [wd] * len(lr)


if __name__ == "__main__":
    sys.exit(run_adapter("optax_schedule", __doc__, run_case, "optax.schedules (x64)",
                         f"optax {metadata.version('optax')}, jax {jax.__version__}", ADAPTER))
