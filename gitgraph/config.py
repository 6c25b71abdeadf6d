"""`.gitgraph.yml` → a frozen Config with defaults; unknown keys warn, bad values are errors."""

from __future__ import annotations

import fnmatch
import sys
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from .errors import GitGraphError
from .languages import LANGUAGES

CONFIG_FILE = ".gitgraph.yml"

# Weight of a function or class used as a value (passed, assigned, returned, decorating)
# against 1.0 for a call. Fixed when the graph is built (graph.json holds edge weights), so it
# is not a per-repository setting. (MRR at 2,000 tokens: 0.25 0.676, 0.5 0.678, 1.0 0.672.)
VALUE_WEIGHT = 0.5
# Weight of a call `x.m()` with `x` unknown, resolved to the repository's few methods named m
# (shared among them). MRR at 2,000 tokens: 0.25 0.793, 0.5 0.794, 1.0 0.793.
RECEIVER_WEIGHT = 0.5


def _default_weights() -> dict[str, float]:
    # Tried on bench/impact_quality.py (60 faults, 2,000 tokens): damping 0.7 or tests 2.5 with
    # forward 0.05 both lowered MRR (0.62, 0.60 against 0.64); these values stay.
    # Again with value refs, class_tests and test_name in (MRR 0.788, test-fn recall 0.779):
    # damping 0.4 0.790/0.779, 0.6 0.778/0.762; tests 2.0 0.783/0.792. Left as they are.
    return {
        # impact flows from a changed symbol to what depends on it (reverse edges) ...
        "calls": 1.0,
        "tests": 1.4,
        "inherits": 0.9,
        "imports": 0.3,
        # (MRR at 2,000 tokens: 0.05 0.784 but recall down, 0.15 0.782, 0.4 0.770, 0.8 0.755:
        # a changed member flowing to its class spreads to every user of the class)
        "contains": 0.15,
        # ... and, more weakly, to what the changed code relies on (forward edges)
        "forward": 0.15,
        # seeds by change kind
        "seed_removed": 1.0,
        "seed_signature": 1.0,
        "seed_body": 0.8,
        "seed_added": 0.5,
        "seed_cosmetic": 0.05,
        "damping": 0.5,
        # selection: the ranked tests listed may take this share of the budget (after the
        # changed symbols), at most max_tests ids. A test id costs ~20 tokens, an impacted node
        # 60-300. Test-fn recall at 2,000 tokens: share 1/3 0.56, 0.5 0.66, 0.7 0.71; later
        # 0.6 0.779, 0.75 0.795. Measured again (test-fn recall at 1,000/2,000/4,000
        # tokens; MRR does not move, node precision rises as fewer nodes are shown):
        # 0.6 0.660/0.780/0.846, 0.75 0.682/0.796/0.879, 0.9 0.688/0.804/0.883. 0.75 is the
        # knee: past it the list gains little and the changed code's callers lose their room.
        # Again with operator dunders and class-bound locals extracted (test-fn recall at
        # 2,000 tokens; MRR 0.822 throughout): 0.75 0.801, 0.85 0.808, 0.9 0.827, 0.95 0.827.
        # 0.85 gains on 8 faults and loses on none; the step to 0.9 is one fault's two tests
        # at ids 120-121, and leaves impacted nodes ~200 tokens. Without that extraction
        # (30% more parse CPU: not taken), 0.85 gives 0.81 recall, MRR 0.81, precision 0.94.
        "tests_share": 0.85,
        "max_tests": 200,
        # a test class reached through its own body lists the tests it runs at this times
        # the share of its score that came that way (MRR 1.0 0.718, 3.0 0.770, 10.0 0.768).
        # Again once its tests are ordered by their own score (test-fn recall at 1,000/2,000/
        # 4,000 tokens; MRR): 3.0 0.695/0.797/0.880 0.800, 6.0 0.704/0.800/0.878 0.805,
        # 10.0 0.710/0.801/0.876 0.805. 6.0 gains at the small budgets, loses little at 4,000.
        "class_tests": 6.0,
        # a test named after a changed symbol (test_lru_clear for clear) scores this much more
        # (MRR 0.782 without, 1.0 0.787, 2.0 0.788, 5.0 0.780)
        "test_name": 2.0,
        # a Python test file or class is named by one id when this share of its tests is
        # impacted (above 1: never). At 2,000 tokens, test-fn recall / MRR / mean tests the
        # ids run (61 fail): never 0.81/0.81/82, 1.0 0.84/0.90/105, 0.9 0.93/0.93/224,
        # 0.8 0.95/0.93/320. 0.9 meets the recall target with the fewest extra tests run.
        "test_group_share": 0.9,
    }


@dataclass(frozen=True)
class Config:
    """Settings for one repository (all paths repo-relative, POSIX)."""

    graph: str = ".gitgraph/graph.json"
    include: tuple[str, ...] = ()
    exclude: tuple[str, ...] = ()
    languages: tuple[str, ...] = LANGUAGES
    max_file_bytes: int = 1_000_000
    budget: int = 2000
    encoding: str = "cl100k_base"
    weights: dict[str, float] = field(default_factory=_default_weights)

    def wants(self, path: str) -> bool:
        """Whether include/exclude globs admit this path."""
        if self.include and not any(fnmatch.fnmatchcase(path, g) for g in self.include):
            return False
        return not any(fnmatch.fnmatchcase(path, g) for g in self.exclude)


def load(root: Path) -> Config:
    """Read `.gitgraph.yml` at the repository root (absent file → defaults)."""
    path = root / CONFIG_FILE
    if not path.is_file():
        return Config()
    import yaml

    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        line = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise GitGraphError(f"{CONFIG_FILE}: cannot parse ({line})") from None
    if not isinstance(raw, dict):
        raise GitGraphError(f"{CONFIG_FILE}: expected a mapping at the top level")
    return parse(raw)


def parse(raw: dict[str, Any]) -> Config:
    """Validate a config mapping against the defaults' types."""
    known = {f.name for f in fields(Config)}
    for key in sorted(set(raw) - known):
        print(f"gitgraph: warning: {CONFIG_FILE}: unknown key '{key}' ignored", file=sys.stderr)
    base = Config()
    values: dict[str, Any] = {}
    for key in sorted(set(raw) & known):
        value = raw[key]
        default = getattr(base, key)
        if isinstance(default, tuple):
            if isinstance(value, str):
                value = [value]
            if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                raise GitGraphError(f"{CONFIG_FILE}: '{key}' must be a list of strings")
            value = tuple(value)
        elif isinstance(default, dict):
            if not isinstance(value, dict):
                raise GitGraphError(f"{CONFIG_FILE}: '{key}' must be a mapping")
            for name, weight in value.items():
                if name not in default or not isinstance(weight, (int, float)):
                    raise GitGraphError(f"{CONFIG_FILE}: bad weight '{name}: {weight}'")
            value = {**default, **{k: float(v) for k, v in value.items()}}
        elif type(value) is not type(default):
            raise GitGraphError(f"{CONFIG_FILE}: '{key}' must be a {type(default).__name__}")
        values[key] = value
    config = replace(base, **values)
    unknown = sorted(set(config.languages) - set(LANGUAGES))
    if unknown:
        raise GitGraphError(f"{CONFIG_FILE}: unknown language(s) {', '.join(unknown)} "
                            f"(known: {', '.join(LANGUAGES)})")
    if config.graph.startswith("/") or ".." in config.graph.split("/"):
        raise GitGraphError(f"{CONFIG_FILE}: 'graph' must be a path inside the repository")
    return config
