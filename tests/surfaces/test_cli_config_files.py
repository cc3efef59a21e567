"""Where gno's files are and how index.yml is written: real `gno` processes in throwaway
homes (tests/conftest.py sets GNO_CONFIG_DIR, GNO_DATA_DIR and GNO_CACHE_DIR)."""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gno.connectors.skills import places
from gno.errors import ValidationError
from gno.ingest.roots import is_system_root
from gno.mcpinstall.targets import Places
from gno.models.catalog import parse_model_uri
from gno.paths import completion_target, resolve_paths

GNO = [sys.executable, "-m", "gno.cli.entry"]


def gno(
    *args: str, env: dict[str, str] | None = None, umask: int = -1
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy() if env is None else env,
        umask=umask,
    )


def ok(*args: str, umask: int = -1) -> str:
    done = gno(*args, umask=umask)
    assert done.returncode == 0, done.stderr
    assert "Internal error" not in done.stderr
    return done.stdout


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def notes(tmp_path: Path, name: str = "notes") -> Path:
    root = tmp_path / name
    root.mkdir()
    (root / "a.md").write_text("# A\n")
    return root


def test_a_symlinked_index_yml_is_edited_through_the_link_and_keeps_its_mode(
    tmp_path: Path,
) -> None:
    # Before: every config write renamed a new file over the link, so the dotfile
    # repository's copy stopped getting edits without a word, and the file became 0600.
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    ok("init")
    repo = tmp_path / "dotfiles" / "index.yml"
    repo.parent.mkdir()
    config.rename(repo)
    repo.chmod(0o644)
    config.symlink_to(repo)
    ok("collection", "add", str(notes(tmp_path)), "--name", "notes")
    ok("context", "add", "notes:", "team notes")
    ok("collection", "rename", "notes", "journal")
    ok("collection", "add", str(notes(tmp_path, "more")), "--name", "more")
    ok("collection", "remove", "more")
    assert config.is_symlink() and config.resolve() == repo
    assert mode(repo) == 0o644
    text = repo.read_text()
    assert "name: journal" in text and "scopeKey: 'journal:'" in text and "more" not in text
    listed = json.loads(ok("collection", "list", "--json"))
    assert [c["name"] for c in listed] == ["journal"]
    assert [p.name for p in config.parent.iterdir()] == ["index.yml"]  # no temp file left
    assert sorted(p.name for p in repo.parent.iterdir()) == ["index.yml"]


def test_index_yml_keeps_its_mode_and_a_new_one_gets_the_umask(tmp_path: Path) -> None:
    # Before: every write made the file 0600, whatever it was and whatever the umask.
    config = Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml"
    ok("init", umask=0o027)
    assert mode(config) == 0o640
    config.chmod(0o604)
    ok("collection", "add", str(notes(tmp_path)), "--name", "notes", umask=0o077)
    assert mode(config) == 0o604


@pytest.fixture
def user_home(monkeypatch: pytest.MonkeyPatch) -> Path:
    """The home folder of the system's user record; no XDG or GNO folder variable set, so
    every location comes from the home lookup. Nothing here writes there."""
    for name in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR", "GNO_SKILLS_HOME_OVERRIDE"):
        monkeypatch.delenv(name, raising=False)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "CLAUDE_SKILLS_DIR"):
        monkeypatch.delenv(name, raising=False)
    return Path(pwd.getpwuid(os.getuid()).pw_dir)


@pytest.mark.parametrize("home", ["", "relative/home"])
def test_an_empty_or_relative_home_is_not_taken_for_the_home_folder(
    home: str, user_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Before: HOME="" made every location start at "/" (/.config/gno/index.yml,
    # /.cursor/mcp.json, /.claude/skills), and a relative HOME made it a folder of the
    # current one.
    monkeypatch.setenv("HOME", home)
    paths = resolve_paths()
    assert paths.config_file == user_home / ".config" / "gno" / "index.yml"
    assert paths.data_dir == user_home / ".local" / "share" / "gno"
    assert paths.cache_dir == user_home / ".cache" / "gno"
    assert parse_model_uri("file:~/models/e.gguf").path == f"{user_home}/models/e.gguf"
    assert Places.from_env().home == user_home
    assert [p.folder for p in places("claude")] == [user_home / ".claude" / "skills"]
    assert completion_target("zsh")[0] == user_home / ".zfunc" / "_gno"
    assert is_system_root(str(user_home))


def test_mcp_install_with_an_empty_home_names_the_users_own_config(
    isolated_env: Path, user_home: Path
) -> None:
    env = os.environ | {"HOME": ""}
    env |= {
        f"GNO_{kind.upper()}_DIR": str(isolated_env / kind) for kind in ("config", "data", "cache")
    }
    done = gno("mcp", "install", "-t", "cursor", "--dry-run", "--json", env=env)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["installed"]["configPath"] == str(
        user_home / ".cursor" / "mcp.json"
    )


def test_relative_xdg_folders_are_ignored(
    user_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The XDG Base Directory rule: a relative value is invalid and ignored. Before, the
    # skill folder of opencode and the completion files went under the current folder.
    monkeypatch.chdir(tmp_path)
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        monkeypatch.setenv(name, "relative")
    assert resolve_paths().config_file == user_home / ".config" / "gno" / "index.yml"
    assert [p.folder for p in places("opencode")] == [user_home / ".config" / "opencode" / "skill"]
    assert completion_target("fish")[0] == user_home / ".config/fish/completions/gno.fish"
    assert completion_target("bash")[0].is_absolute()


def uid_without_a_user_record() -> int:
    """A uid this test may run gno as (setpriv, as root) that the user record does not know."""
    uid = 54321
    with contextlib.suppress(KeyError):
        pwd.getpwuid(uid)
        pytest.skip(f"uid {uid} has a user record here")
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("setpriv as root is needed to run as a uid with no user record")
    return uid


def test_no_home_anywhere_is_a_clear_error_and_writes_nothing(tmp_path: Path) -> None:
    # A uid with no entry in the user record and HOME empty: no place is guessed.
    uid = uid_without_a_user_record()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "XDG_"))}
    done = subprocess.run(
        ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *GNO, "init", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env | {"HOME": ""},
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stdout
    message = json.loads(done.stderr)["error"]["message"]
    assert message.startswith("Cannot tell your home folder") and "GNO_CONFIG_DIR" in message
    assert list(tmp_path.iterdir()) == []


def test_mcp_install_in_a_project_needs_no_home(request: pytest.FixtureRequest) -> None:
    # A project's client config lies in the current folder: with no home at all (a uid with
    # no user record, HOME unset) and gno's folders given, as the home error advises, the
    # project scope works. It used to work out the home first and fail.
    uid = uid_without_a_user_record()
    # pytest's tmp_path is the owner's alone: a folder that uid can walk to, under /tmp.
    shared = Path(tempfile.mkdtemp(prefix="gno-nohome-", dir="/tmp"))
    request.addfinalizer(lambda: shutil.rmtree(shared, ignore_errors=True))
    project, gno_home = shared / "project", shared / "gno"
    for folder in (shared, project, gno_home):
        folder.mkdir(exist_ok=True)
        folder.chmod(0o777)  # the uid below owns nothing here
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "XDG_", "HOME"))}
    env |= {f"GNO_{kind}_DIR": str(gno_home / kind) for kind in ("CONFIG", "DATA", "CACHE")}
    as_uid = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *GNO, "mcp"]

    def run_as(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*as_uid, *args, "--json"],
            capture_output=True,
            text=True,
            timeout=60,
            env=env,
            cwd=project,
        )

    done = run_as("install", "-t", "cursor", "-s", "project")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["installed"]["configPath"] == str(project / ".cursor/mcp.json")
    assert "gno" in json.loads((project / ".cursor" / "mcp.json").read_text())["mcpServers"]
    rows = json.loads(run_as("status", "-s", "project").stdout)["targets"]
    assert [r["target"] for r in rows if r["configured"]] == ["cursor"]
    user = run_as("install", "-t", "cursor", "-s", "user")  # that one does need the home
    assert user.returncode == 2
    assert json.loads(user.stderr)["error"]["message"].startswith("Cannot tell your home folder")


@pytest.mark.parametrize(
    "command",
    [["status"], ["mcp", "status"], ["mcp", "install", "-t", "cursor", "--dry-run"], ["mcp"]],
    ids=" ".join,
)
def test_an_empty_config_flag_is_a_validation_error(isolated_env: Path, command: list[str]) -> None:
    # `--config "$UNSET"` was the default index.yml, silently; `--index ""` is an invalid name.
    done = subprocess.run(
        [*GNO, "--config", "", *command, *([] if command == ["mcp"] else ["--json"])],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1, done.stdout
    assert "--config is empty" in done.stderr
    if command != ["mcp"]:  # the stdio server reports on stderr in plain text
        assert json.loads(done.stderr)["error"]["code"] == "VALIDATION"
    assert not (isolated_env / "config").exists()
    with pytest.raises(ValidationError, match="--config is empty"):
        resolve_paths("")  # the SDK's GnoClient(config="") too


def not_a_folder(tmp_path: Path) -> list[Path]:
    """A file, a named pipe and a device where a folder of gno's should be."""
    (tmp_path / "a-file").write_text("x")
    os.mkfifo(tmp_path / "a-fifo")
    return [tmp_path / "a-file", tmp_path / "a-fifo", Path("/dev/null")]


def test_a_data_or_cache_folder_that_is_not_a_folder_is_a_clear_error(tmp_path: Path) -> None:
    # Before: "Internal error (FileExistsError …)" from `init` and `serve`, and
    # "Internal error (NotADirectoryError …)" from `models pull`.
    root = notes(tmp_path)
    for place in not_a_folder(tmp_path):
        env = os.environ | {"GNO_DATA_DIR": str(place)}
        for args in (["init", str(root), "--json"], ["serve", "--port", "0"]):
            done = gno(*args, env=env)
            assert done.returncode == 2, (args, done.stdout)
            assert f"Cannot use the folder {place}: it (or a folder above it) is not a folder" in (
                done.stderr
            )
            assert "Internal error" not in done.stderr
        env = os.environ | {"GNO_CACHE_DIR": str(place), "HF_ENDPOINT": "http://127.0.0.1:9"}
        env.pop("HF_HUB_OFFLINE")
        done = gno("models", "pull", "--embed", "--json", env=env)
        assert done.returncode == 2, done.stdout
        error = json.loads(done.stderr)["error"]
        assert error["message"] == (
            f"Cannot use the folder {place}/models/.locks: it (or a folder above it) is not "
            "a folder"
        )
    assert place.is_char_device() and (tmp_path / "a-file").read_text() == "x"


def test_a_read_only_data_folder_is_a_clear_error(tmp_path: Path) -> None:
    if os.geteuid() == 0 and shutil.which("setpriv") is None:
        pytest.skip("setpriv is needed to run a command as root without DAC override")
    data = tmp_path / "read-only"
    data.mkdir(mode=0o555)
    caps = "-dac_override,-dac_read_search,-fowner"
    unprivileged = ["setpriv", f"--bounding-set={caps}", f"--inh-caps={caps}"]
    done = subprocess.run(
        [*(unprivileged if os.geteuid() == 0 else []), *GNO, "init", str(notes(tmp_path))],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ | {"GNO_DATA_DIR": str(data)},
    )
    # Before: "Internal error (PermissionError: … index-default.lock)".
    assert done.returncode == 2, done.stdout
    assert done.stderr == f"Error: Cannot use the folder {data}: Permission denied\n"
    assert list(data.iterdir()) == []


@pytest.mark.parametrize("variable", ["GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR"])
def test_a_folder_whose_name_is_not_utf8_is_refused_before_anything_is_made(
    variable: str, tmp_path: Path
) -> None:
    # Before: "Internal error (UnicodeEncodeError …)" from init and status (SQLite takes
    # UTF-8 file names; a JSON answer cannot carry the path), after making the folder.
    folder = os.fsencode(tmp_path) + b"/caf\xe9"
    env = {os.fsencode(k): os.fsencode(v) for k, v in os.environ.items()}
    env[variable.encode()] = folder
    for args in (["init", str(notes(tmp_path, "n-" + variable)), "--json"], ["status", "--json"]):
        done = subprocess.run([*GNO, *args], capture_output=True, timeout=60, env=env)
        assert done.returncode == 1, done.stdout
        message = json.loads(done.stderr)["error"]["message"]
        assert "caf\\xe9" in message and "is not valid UTF-8" in message
    assert sorted(p.name for p in tmp_path.iterdir()) == ["n-" + variable]


def test_an_index_name_that_is_not_utf8_is_a_validation_error() -> None:
    # Before: "Internal error (UnicodeEncodeError: 'utf-16-le' codec …)" from every command.
    for args in ([b"status", b"--json"], [b"init", b"--json"]):
        done = subprocess.run(
            [*GNO, b"--index", b"notes\xff", *args], capture_output=True, timeout=60
        )
        assert done.returncode == 1, done.stdout
        error = json.loads(done.stderr)["error"]
        assert error["code"] == "VALIDATION"
        assert error["message"].startswith("Invalid index name 'notes\\udcff': may only contain")
    assert not Path(os.environ["GNO_DATA_DIR"]).exists()
