"""`ratchet watch`: did the agent model's behaviour move behind the same name? (docs/adr/0024-watch.md)

run.py replays a sample of blessed goldens under their unchanged skills with the configured agent model
(select.py chooses them, compare.py classifies each replay), stats.py tests each skill's differ rate
against its noise records, render.py prints the report (models.py).
"""
