"""Test helpers shared by every tier: the loopback Messages API stub and its pytest fixture."""
