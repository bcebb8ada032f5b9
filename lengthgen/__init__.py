"""lengthgen: an executable study of length generalization in sequence models."""

__version__ = "0.1.0"
