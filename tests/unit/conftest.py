"""Fixtures shared by the embedcore unit tests."""

import pytest

from embedcore import batch


def _cluster():
    return batch.cluster(workers=2, processes=False, memory_limit="2GB")


@pytest.fixture
def client():
    """A 2-worker Dask LocalCluster (threads, 2 GB each) of the test's own. Runs on one cluster share task
    names (a file's read blocks are named by the file), and a name being released while a later test asks
    for it again can leave that test waiting forever, so no test inherits another's cluster."""
    with _cluster() as c:
        yield c


@pytest.fixture(scope="module")
def module_client():
    """A cluster for a module's fixtures that run a step once for several tests."""
    with _cluster() as c:
        yield c
