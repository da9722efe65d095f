"""Parses an OpenMetrics exposition on stdin with prometheus_client's parser (the one
Prometheus's Python client ships) and prints its families as JSON: a malformed exposition
is an error here, as it would be for a scraper."""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families

families = {}
for family in text_string_to_metric_families(sys.stdin.read()):
    families[family.name] = {
        "type": family.type,
        "samples": [[s.name, s.labels, s.value] for s in family.samples],
    }
json.dump(families, sys.stdout)
