"""The one exception type the CLI turns into a clean message and a non-zero exit."""


class LengthgenError(ValueError):
    """Bad input or a bad stored entry, with a message that names what is valid."""
