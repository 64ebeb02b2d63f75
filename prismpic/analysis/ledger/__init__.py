"""The claims ledger: every numbered claim of the seeds judged over its named assumptions (judges per
document, the shared model context, verdicts over ranges, the assumptions registry, the claims' texts)."""
