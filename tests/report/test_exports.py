"""synthguard.report exports exactly the public names the docs promise."""

import synthguard
import synthguard.report as report

PROMISED = {
    "METRICS", "Evaluation", "Metric", "PipelineResult", "Plan", "ReleaseEvaluation",
    "ReleaseSpec", "Threshold", "ThresholdCheck", "build_demo_report", "build_report",
    "evaluate", "init_plan", "load_plan", "parse_plan", "run_plan", "write_report",
}


def test_report_all():
    assert set(report.__all__) == PROMISED
    for name in report.__all__:
        assert hasattr(report, name)


def test_metrics_state_direction_and_range():
    for m in report.METRICS.values():
        assert m.goal in ("min", "max") and m.section in ("utility", "risk")
        assert m.lower is None or m.upper is None or m.lower < m.upper
        assert m.description and m.paths


def test_top_level_evaluate():
    assert synthguard.evaluate is report.evaluate
