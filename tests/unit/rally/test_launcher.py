from esrally import actor
from thespian.system.transport import TCPTransport

from ingestlab.rally import launcher
from ingestlab.runners import compat


def test_moves_the_actor_port_and_the_running_probe(monkeypatch):
    from esrally.utils import process

    probed = []
    monkeypatch.setattr(actor, "actor_system_already_running", lambda ip=None, port=None, system_base=None: probed.append(port) or False)
    monkeypatch.setattr(TCPTransport, "DEFAULT_ADMIN_PORT", 1900)
    monkeypatch.setattr(process, "find_all_other_rally_processes", process.find_all_other_rally_processes)  # restored after the test
    compat.move_actor_port(45123, launcher._note_others)
    assert TCPTransport.DEFAULT_ADMIN_PORT == 45123
    assert actor.actor_system_already_running() is False
    assert probed == [45123]


def test_on_its_own_port_rally_starts_beside_other_rally_processes_and_names_them(monkeypatch, capsys):
    from esrally.utils import process

    class Other:
        pid = 4242

    monkeypatch.setattr(actor, "actor_system_already_running", lambda ip=None, port=None, system_base=None: False)
    monkeypatch.setattr(TCPTransport, "DEFAULT_ADMIN_PORT", 1900)
    monkeypatch.setattr(process, "find_all_other_rally_processes", lambda: [Other()])
    compat.move_actor_port(45124, launcher._note_others)
    assert process.find_all_other_rally_processes() == []  # Rally's refusal is for a shared port 1900
    assert "other Rally processes run on this machine (PIDs 4242)" in capsys.readouterr().err


def test_workers_look_for_the_end_of_their_task_as_often_as_asked(monkeypatch):
    from esrally.driver import driver

    monkeypatch.setattr(driver.Worker, "WAKEUP_INTERVAL_SECONDS", 5)
    monkeypatch.setattr(driver.TaskExecutionActor, "__init__", driver.TaskExecutionActor.__init__)
    monkeypatch.setattr(driver.TaskExecutionActor, "receiveMsg_StartTaskLoop", driver.TaskExecutionActor.receiveMsg_StartTaskLoop)
    monkeypatch.setattr(actor.RallyActor, "__init__", lambda self: None)  # no logging set-up in a unit test
    compat.poll_tasks_every(0.5)
    assert driver.Worker.WAKEUP_INTERVAL_SECONDS == 0.5
    actor_ = driver.TaskExecutionActor.__new__(driver.TaskExecutionActor)
    driver.TaskExecutionActor.__init__(actor_)
    assert actor_.wakeup_interval == 0.5


def test_the_track_preparation_steps_are_looked_at_as_often_as_asked_in_test_mode_too(monkeypatch):
    """Rally sets its task-execution actors' interval to 0.5 s when a test-mode preparation starts: asked 0.1 s, they
    keep 0.1 s."""
    from types import SimpleNamespace

    from esrally.driver import driver

    monkeypatch.setattr(driver.Worker, "WAKEUP_INTERVAL_SECONDS", 5)
    monkeypatch.setattr(driver.TaskExecutionActor, "__init__", driver.TaskExecutionActor.__init__)
    monkeypatch.setattr(driver.TaskExecutionActor, "receiveMsg_StartTaskLoop", driver.TaskExecutionActor.receiveMsg_StartTaskLoop)
    monkeypatch.setattr(actor.RallyActor, "__init__", lambda self: None)
    cfg = SimpleNamespace(opts=lambda section, key: True)  # test mode
    monkeypatch.setattr(driver, "load_local_config", lambda c: cfg)
    monkeypatch.setattr(driver.track, "load_track_plugins", lambda c, name: None)
    compat.poll_tasks_every(0.5, 0.1)
    actor_ = driver.TaskExecutionActor.__new__(driver.TaskExecutionActor)
    driver.TaskExecutionActor.__init__(actor_)
    assert actor_.wakeup_interval == 0.1
    sent = []
    actor_.send = lambda to, msg: sent.append(type(msg).__name__)
    driver.TaskExecutionActor.receiveMsg_StartTaskLoop(actor_, SimpleNamespace(track_name="posts", cfg=None), "preparator")
    assert actor_.wakeup_interval == 0.1 and sent == ["ReadyForWork"] and driver.Worker.WAKEUP_INTERVAL_SECONDS == 0.5


def test_an_unsupported_rally_is_one_line(monkeypatch):
    import importlib.metadata

    import pytest

    compat.checked.cache_clear()
    monkeypatch.setattr(importlib.metadata, "version", lambda name: "2.9.1")
    with pytest.raises(compat.Unsupported, match=r"esrally 2.9.1 is not supported by this pack \(supported: 2.12–2.13.x\)"):
        compat.checked()
    compat.checked.cache_clear()


def test_a_race_ends_after_a_short_grace_and_as_soon_as_the_actor_system_is_gone(monkeypatch):
    """Rally's end of race: sleep(3) for messages in flight, shut down, then sleep(1) while the system still runs. The
    first wait is cut to the grace; a later one ends as soon as the probe says the system is gone, never longer."""
    import time

    from esrally import rally

    slept, answers = [], iter([True, True, False])
    monkeypatch.setattr(rally, "time", rally.time)  # restored after the test
    monkeypatch.setattr(time, "sleep", slept.append)
    monkeypatch.setattr(actor, "actor_system_already_running", lambda *a, **k: next(answers))
    compat.end_quickly(0.5, poll_s=0.1)
    assert rally.time.time is time.time  # everything else is the time module's own
    rally.time.sleep(3)
    assert slept == [0.5]
    rally.time.sleep(1)  # running, running, gone: two polls, then on
    assert slept[0] == 0.5 and len(slept) == 3 and all(0 < s <= 0.1 for s in slept[1:])
    monkeypatch.setattr(actor, "actor_system_already_running", lambda *a, **k: True)
    monkeypatch.setattr(time, "sleep", lambda s: None)
    start = time.monotonic()
    rally.time.sleep(0.3)  # a system that does not go: the wait still ends at its own length
    assert 0.3 <= time.monotonic() - start < 1


def test_a_bad_interval_in_the_environment_is_one_line_naming_the_variable(monkeypatch, capsys):
    """Before: a bare ``ValueError: could not convert string to float`` traceback from the launcher."""
    import pytest

    ran = []
    monkeypatch.setattr(compat, "checked", lambda: None)
    monkeypatch.setattr(compat, "engine", lambda: "rally")
    monkeypatch.setattr(compat, "run_rally", lambda daemon: ran.append(daemon) or 0)
    monkeypatch.delenv(launcher.PORT_VARIABLE, raising=False)
    monkeypatch.delenv(launcher.PROGRESS_VARIABLE, raising=False)
    for variable in (launcher.WAKEUP_VARIABLE, launcher.PREPARE_WAKEUP_VARIABLE, launcher.GRACE_VARIABLE):
        monkeypatch.setenv(variable, "")
    for bad in ("0,5", "-1", "nan", "inf"):
        monkeypatch.setenv(launcher.GRACE_VARIABLE, bad)
        assert launcher.main() == 2
        err = capsys.readouterr().err
        assert f"ingestlab: error: INGESTLAB_RALLY_EXIT_GRACE_S={bad!r} is not a number of seconds" in err
        assert "Traceback" not in err
    assert ran == []
    assert launcher._seconds(launcher.WAKEUP_VARIABLE, 0.5) == 0.5  # unset or empty: the default
    monkeypatch.setenv(launcher.WAKEUP_VARIABLE, " 0.2 ")
    assert launcher._seconds(launcher.WAKEUP_VARIABLE, 0.5) == 0.2
    monkeypatch.setenv(launcher.WAKEUP_VARIABLE, "0")
    with pytest.raises(ValueError, match=r"INGESTLAB_RALLY_WAKEUP_S='0' is not a number of seconds \(a finite number, 0.01 or more"):
        launcher._seconds(launcher.WAKEUP_VARIABLE, 0.5, least=0.01)
    monkeypatch.setenv(launcher.GRACE_VARIABLE, "0")
    assert launcher._seconds(launcher.GRACE_VARIABLE, 0.5) == 0  # no grace at all is allowed
    with pytest.raises(ValueError, match="INGESTLAB_RALLY_WAKEUP_S='x'"):
        monkeypatch.setenv(launcher.WAKEUP_VARIABLE, "x")
        launcher._seconds(launcher.WAKEUP_VARIABLE, 0.5)
