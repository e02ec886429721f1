"""Settings from `workspace/configuration` (section `kernelgen`) over `initializationOptions`."""

from __future__ import annotations

import asyncio

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import server_config, start_session

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_lsp.fixture(config=server_config(), scope="module", loop_scope="module")
async def client(lsp_client: LanguageClient, tmp_path_factory: pytest.TempPathFactory):
    lsp_client.set_configuration({"kernelgen": {"chip": "ascend310p",
                                                "recordAcceptedEdits": False}})
    await start_session(lsp_client, tmp_path_factory, chip="ascend910", lintDebounceMs=7)
    yield
    await lsp_client.shutdown_session()


async def _status(client: LanguageClient) -> dict:
    return await client.workspace_execute_command_async(lsp.ExecuteCommandParams(
        command="kernelgen.status", arguments=[{}]))


async def test_workspace_configuration_wins_over_initialization_options(
        client: LanguageClient) -> None:
    status = await _status(client)
    for _ in range(50):  # `initialized` fetches the configuration asynchronously
        if status["chip"] == "ascend310p":
            break
        await asyncio.sleep(0.1)
        status = await _status(client)
    assert status["chip"] == "ascend310p"
    assert status["settings"]["lintDebounceMs"] == 7  # from initializationOptions
    assert status["editStore"] is None  # recording switched off
    assert status["version"] and status["completion"]["backend"] == "embedded"
