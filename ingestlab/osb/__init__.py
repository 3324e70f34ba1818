"""opensearch-benchmark (OSB), Rally's fork, racing the pack's studies against OpenSearch: its own environment
(:mod:`.tool`), the studies' workloads made from the tracks (:mod:`.workloads`), and its races read back as the
pack's race results (:mod:`.race`)."""
