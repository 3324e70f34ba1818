"""Verdicts a user can act on: compare's decisions with the race as the unit (judge), their statistics, and the noise
floors they lean on."""
