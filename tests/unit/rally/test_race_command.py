from pathlib import Path

import pytest

from ingestlab.errors import IngestlabError
from ingestlab.rally import command as race
from ingestlab.rally.home import ensure_rally_home


def test_command_is_offline_benchmark_only_and_never_kills_other_rallies():
    request = race.RaceRequest(
        track_path=Path("/t/posts"),
        target_hosts="127.0.0.1:29200",
        challenge="bulk",
        user_tags={"study": "posts", "run": "a"},
        test_mode=True,
        report_file=Path("/r.md"),
    )
    cmd = race.build_command(request, "rid", Path("/p.json"))
    assert cmd[1:4] == ["-m", "ingestlab.rally.launcher", "race"]
    for expected in [
        "--offline",
        "--pipeline=benchmark-only",
        "--track-path=/t/posts",
        "--target-hosts=127.0.0.1:29200",
        "--race-id=rid",
        "--challenge=bulk",
        "--track-params=/p.json",
        "--user-tags=study:posts,run:a",
        "--test-mode",
        "--report-file=/r.md",
        "--on-error=abort",
    ]:
        assert expected in cmd
    assert not any("kill-running-processes" in a for a in cmd)


def test_client_options_are_redacted_when_printed():
    request = race.RaceRequest(track_path=Path("/t"), target_hosts="h:1", client_options="basic_auth_user:'u',basic_auth_password:'s3cret'")
    shown = race.redacted(race.build_command(request, "rid", None))
    assert "s3cret" not in shown and "--client-options=<redacted>" in shown


def test_tags_with_separators_are_refused():
    with pytest.raises(IngestlabError):
        race.format_tags({"a": "b,c"})


def test_rally_home_gets_a_minimal_offline_config(tmp_path):
    ensure_rally_home(tmp_path)
    ini = (tmp_path / ".rally" / "rally.ini").read_text()
    assert "datastore.type = in-memory" in ini and "config.version = 17" in ini
