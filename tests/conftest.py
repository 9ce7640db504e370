import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")


import pytest  # noqa: E402 - after the environment, as the tests' imports read it


@pytest.fixture(scope="session")
def kb():
    """The 1.11.2 knowledge base (a test file that wants another version defines its own `kb`)."""
    from worlds.knowledge import load_kb

    return load_kb("1.11.2")


@pytest.fixture(scope="session")
def vocab(kb):
    """The grid world's vocabulary of that knowledge base."""
    from worlds.gridworld.spec import make_vocab

    return make_vocab(kb)
