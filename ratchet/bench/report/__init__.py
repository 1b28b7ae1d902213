"""Reading results: metrics, judge rates, calibration, the report, its figure and comparisons."""
