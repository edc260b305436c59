"""What tools/mutation.py hands cosmic-ray and runs itself: the test command, whatever the paths hold."""

import importlib.util
import shlex
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutation", ROOT / "tools" / "mutation.py")
mutation = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mutation)


def test_a_test_file_with_a_space_or_a_quote_in_its_path_stays_one_argument():
    test_file = 'tests/a dir/test_"x".py'
    argv = shlex.split(mutation.test_command(test_file))
    assert argv[:3] == [sys.executable, "-m", "pytest"]
    assert argv[3] == test_file


def test_the_config_reads_back_as_the_paths_it_was_given(tmp_path):
    source, test_file = 'my "work"/pathfinding/a\\b.py', "tests/with space/test_a.py"
    config = tmp_path / "c.toml"
    mutation.write_config(config, source, test_file, 61.4)
    read = tomllib.loads(config.read_text())["cosmic-ray"]
    assert read["module-path"] == source
    assert read["timeout"] == 61
    assert shlex.split(read["test-command"])[3] == test_file
