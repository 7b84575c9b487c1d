"""Fixtures shared by the embedcore unit tests."""

import pytest

from embedcore import batch


@pytest.fixture(scope="module")
def client():
    """A 2-worker Dask LocalCluster (threads, 2 GB each), one per test module that asks for it."""
    with batch.cluster(workers=2, processes=False, memory_limit="2GB") as c:
        yield c
