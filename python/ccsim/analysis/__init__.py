"""Closed-form analyses that accompany the models: numbers theory gives without simulating.

``hgrcp``: seed 000's control analysis of the HG-RCP gateway (stability, buffer variance, the
zero-loss buffer bound, signalling overhead); ``ccsim analyze hgrcp`` on the command line.
"""

from . import hgrcp

__all__ = ["hgrcp"]
