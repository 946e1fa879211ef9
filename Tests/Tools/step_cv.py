"""Cross-validation of the step detector by person, used by
eval_steps.py --cv.

The labelled people are split into two halves; the detector's tuned
parameters (TUNED) are chosen by a small grid search on one half and
scored on the other, then the halves swap. Every trace is thus counted with
parameters that never saw its wearer; the figures over all traces scored
that way are the cross-validated ones.

Halves: ipol subjects 1-7 against 8-14 (the sidecar's trial_meta.Subject);
in the other folders each person (oxford: the name in the file name,
opt_<phone>_<person>_...; uci: the participant pNN) goes, largest first, to
the half with fewer traces; the two adept running segments come from one
runner's one recording, so they are split by segment (person-independence
cannot be shown for running with this data).

The search is a full grid over TUNED (every combination), run once over all
traces; each half picks the combination with the least loss on its own
traces. It runs `moonrunner step-sweep`, which reads each trace once and
counts it for many parameter sets (about 0.1 s per set over all 160 traces).
"""
import json
import os
import tempfile
from concurrent.futures import ThreadPoolExecutor

import rig

# The parameters the search tunes and the values it tries. Everything else
# in AdaptiveStepDetector.Parameters is fixed by physics or by the signal
# path (gait band, step periods, tick rate) and is not tuned here.
TUNED = {
    "minSwing": [0.06, 0.08, 0.1, 0.12, 0.15],
    "startScore": [0.5, 0.55, 0.6, 0.65, 0.7],
}


def person(folder, name, meta):
    """Who wore the sensor (or, for adept, which recording segment)."""
    if folder.startswith("ipol"):
        subject = (meta.get("trial_meta") or {}).get("Subject")
        return f"ipol-{int(subject) if subject is not None else int(name.split('-')[0])}"
    if folder.startswith("oxford"):
        return "oxford-" + name.split("_")[2]
    if folder.startswith("uci"):
        return "uci-" + name.split("_")[0]
    return f"{folder}-{name}"


def halves(keys, truths):
    """trace -> 0 or 1, by person."""
    out = {}
    by_folder = {}
    for key in keys:
        by_folder.setdefault(key[0], []).append(key)
    for folder, fkeys in by_folder.items():
        people = {}
        for key in fkeys:
            people.setdefault(person(folder, key[1], truths[key]["meta"]), []).append(key)
        if folder.startswith("ipol"):
            side = {p: 0 if int(p.split("-")[1]) <= 7 else 1 for p in people}
        else:
            side, load = {}, [0, 0]
            for p in sorted(people, key=lambda p: (-len(people[p]), p)):
                h = 0 if load[0] <= load[1] else 1
                side[p] = h
                load[h] += len(people[p])
        for p, ks in people.items():
            for key in ks:
                out[key] = side[p]
    return out


def loss(f, targets):
    """One number to minimise: the counting figures each over its target,
    summed (F1 as its shortfall from 1 over the target's), plus how far the
    false steps exceed theirs. False steps below the target are a constraint
    met, not something to trade counting accuracy for: one false step more or
    less in half an hour of standing must not decide the parameters."""
    return (f["mape_all"] / targets["mape_all"] + f["mape_ipol"] / targets["mape_ipol"]
            + f["mape_run"] / targets["mape_run"] + (1 - f["f1"]) / (1 - targets["f1"])
            + max(0.0, f["false_per_hour"] - targets["false_per_hour"]) / targets["false_per_hour"])


class Sweep:
    """Counts every trace for parameter sets through `moonrunner step-sweep`,
    remembering each set's result."""

    def __init__(self, binary, paths, keys, jobs):
        self.binary, self.paths, self.keys, self.jobs = binary, paths, keys, max(1, jobs)
        self.cache = {}
        self.runs = 0

    def run(self, sets):
        todo = []
        for s in sets:
            k = json.dumps(s, sort_keys=True)
            if k not in self.cache and k not in todo:
                todo.append(k)
        if todo:
            chunks = [todo[i::self.jobs] for i in range(self.jobs) if todo[i::self.jobs]]
            with ThreadPoolExecutor(len(chunks)) as ex:
                for chunk, results in zip(chunks, ex.map(self._sweep, chunks)):
                    for k, r in zip(chunk, results):
                        self.cache[k] = r
            self.runs += len(todo)
        return [self.cache[json.dumps(s, sort_keys=True)] for s in sets]

    def _sweep(self, chunk):
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write("\n".join(chunk) + "\n")
            sets_path = f.name
        try:
            stdout = rig.run_checked([self.binary, "step-sweep", "--parameters", sets_path, *self.paths])
        finally:
            os.unlink(sets_path)
        out = []
        for line in stdout.splitlines():
            ms = json.loads(line)["ms"]
            out.append({key: [m / 1000 for m in steps] for key, steps in zip(self.keys, ms)})
        return out


def grid_sets(base, grid):
    """Every combination of the grid's values over `base`."""
    sets = [dict(base)]
    for name, values in grid.items():
        sets = [dict(s, **{name: v}) for s in sets for v in values]
    return sets


def pick(results, sets, score, keys, truths, targets):
    """The set with the least loss on `keys`, and that loss."""
    losses = [loss(score(keys, r, truths), targets) for r in results]
    i = min(range(len(sets)), key=lambda i: losses[i])
    return sets[i], losses[i]


def cross_validate(sweep, score, keys, truths, base, targets, grid=TUNED):
    """Tune on each half (the grid's best on that half), score on the other.
    Returns the pooled figures (every trace counted with the other half's
    parameters), each half's choice and figures, and the choice on all data."""
    side = halves(keys, truths)
    sets = grid_sets(base, grid)
    results = sweep.run(sets)
    pooled, folds = {}, []
    for h in (0, 1):
        train = [k for k in keys if side[k] == h]
        test = [k for k in keys if side[k] != h]
        chosen, train_loss = pick(results, sets, score, train, truths, targets)
        res = sweep.run([chosen])[0]
        for k in test:
            pooled[k] = res[k]
        folds.append({"half": h, "train": train, "test": test, "chosen": chosen, "train_loss": train_loss,
                      "test_figures": score(test, res, truths), "train_figures": score(train, res, truths)})
    overall, overall_loss = pick(results, sets, score, keys, truths, targets)
    return {"side": side, "folds": folds, "figures": score(keys, pooled, truths), "steps": pooled,
            "all_data_choice": overall, "all_data_loss": overall_loss, "sets": len(sets)}
