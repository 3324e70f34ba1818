"""opensearch-benchmark (OSB), Rally's fork, racing the pack's studies against OpenSearch."""
