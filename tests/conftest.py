import pytest

import prismpic


@pytest.fixture(scope="session", autouse=True)
def pdk():
    return prismpic.get_pdk()
