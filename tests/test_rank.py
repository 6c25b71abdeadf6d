"""Personalized PageRank by forward push agrees with a dense power iteration."""

from __future__ import annotations

import random

import numpy as np
import pytest

from gitgraph.model import Change
from gitgraph.rank import ImpactGraph, personalized_pagerank, seed_weights

WEIGHTS = {"calls": 1.0, "tests": 1.4, "inherits": 0.9, "imports": 0.3, "contains": 0.4,
           "forward": 0.15}


def dense_ppr(graph: ImpactGraph, nodes: list[str], seeds: dict[str, float],
              damping: float) -> dict[str, float]:
    index = {n: i for i, n in enumerate(nodes)}
    size = len(nodes)
    transition = np.zeros((size, size))
    restart = np.zeros(size)
    for node, weight in seeds.items():
        restart[index[node]] = weight
    for node in nodes:
        arcs = graph.arcs(node)
        total = sum(w for _, w, _ in arcs)
        if total <= 0:
            transition[:, index[node]] = restart  # dangling mass restarts at the seeds
            continue
        for other, weight, _ in arcs:
            transition[index[other], index[node]] += weight / total
    score = restart.copy()
    for _ in range(500):
        score = (1 - damping) * restart + damping * transition @ score
    return {n: float(score[index[n]]) for n in nodes}


@pytest.mark.parametrize("seed", range(5))
def test_push_matches_power_iteration(seed: int) -> None:
    rng = random.Random(seed)
    nodes = [f"n{i}" for i in range(60)]
    edges = [(rng.choice(nodes), rng.choice(nodes), rng.choice(list(WEIGHTS)[:5]),
              rng.choice([1.0, 0.5])) for _ in range(200)]
    graph = ImpactGraph.from_edges(edges, WEIGHTS)
    seeds = {"n1": 0.7, "n2": 0.3}
    ranking = personalized_pagerank(graph, seeds, damping=0.6, epsilon=1e-9)
    exact = dense_ppr(graph, nodes, seeds, damping=0.6)
    for node, value in exact.items():
        assert ranking.score.get(node, 0.0) == pytest.approx(value, abs=1e-6)
    assert sum(ranking.score.values()) == pytest.approx(1.0, abs=1e-5)


def test_impact_flows_against_dependencies() -> None:
    # caller -> f (calls), test -> caller (tests), f -> helper (calls)
    edges = [("caller", "f", "calls", 1.0), ("test_caller", "caller", "tests", 1.0),
             ("f", "helper", "calls", 1.0), ("unrelated", "helper", "calls", 1.0)]
    graph = ImpactGraph.from_edges(edges, WEIGHTS)
    ranking = personalized_pagerank(graph, {"f": 1.0}, damping=0.5)
    score = ranking.score
    assert score["caller"] > score["helper"] > 0  # dependents above dependencies
    assert score["test_caller"] > 0
    assert ranking.path("test_caller") == ["f", "caller", "test_caller"]
    assert ranking.via["caller"] == ("f", "calls")
    assert ranking.via["helper"] == ("f", "uses:calls")


def test_seed_weights_by_kind_and_cosmetic() -> None:
    weights = {"seed_body": 0.8, "seed_signature": 1.0, "seed_cosmetic": 0.05}
    seeds = seed_weights([Change("a", "body", lines=3), Change("b", "signature", lines=3),
                          Change("c", "body", cosmetic=True, lines=3)], weights)
    assert sum(seeds.values()) == pytest.approx(1.0)
    assert seeds["b"] > seeds["a"] > seeds["c"]
