"""Recorded hook sessions: the player replays a fixture step by step through the real hook
processes against its golden outputs; the recorder turns a real session into a fixture."""
