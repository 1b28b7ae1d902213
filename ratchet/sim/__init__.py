"""The offline simulator: models that follow skills as programs (docs/adr/0001-simulator.md).

Its output is always labeled simulated (ChatResponse.simulated, model ids under `sim/`); its
numbers prove the pipeline and are never results.
"""
