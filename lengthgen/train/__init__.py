"""The one training loop, evaluation by length, and explicit seeding."""
