"""Finding the node on the load driver's own host, and pinning a client's requests to it."""

from types import SimpleNamespace

import pytest

from ingestlab.runners.writing.driver_host import NodeOnHost, NoNodeOnThisHost, is_own_address, pick_local, pinned_to, split_publish_address

NODES = {
    "a": {"name": "node-1", "http": {"publish_address": "127.213.0.11:9200"}},
    "b": {"name": "node-2", "http": {"publish_address": "es2.example/127.213.0.12:9200"}},
    "c": {"name": "node-3", "http": {"publish_address": "127.213.0.13:9201"}},
}


def test_publish_addresses_with_and_without_a_host_name():
    assert split_publish_address("10.0.0.5:9200") == ("10.0.0.5", 9200)
    assert split_publish_address("es.example/10.0.0.5:9243") == ("10.0.0.5", 9243)


def test_the_one_node_whose_address_is_this_hosts():
    assert pick_local(NODES, own=lambda a: a == "127.213.0.12") == NodeOnHost("node-2", "127.213.0.12", 9200)


def test_no_node_here_is_an_error_listing_the_nodes():
    with pytest.raises(NoNodeOnThisHost, match=r"no Elasticsearch node runs on this load driver's host.*node-1 at 127.213.0.11:9200"):
        pick_local(NODES, own=lambda a: False)


def test_several_nodes_here_is_an_error_too():
    with pytest.raises(NoNodeOnThisHost, match="3 nodes run on this load driver's host"):
        pick_local(NODES, own=lambda a: True)


def test_loopback_is_this_host_and_a_foreign_address_is_not():
    assert is_own_address("127.0.0.1")
    assert not is_own_address("192.0.2.1")  # TEST-NET-1: never one of ours


class FakePool:
    def __init__(self, *hostports):
        self.nodes = [SimpleNamespace(config=SimpleNamespace(host=h, port=p)) for h, p in hostports]
        self.marked = []

    def all(self):
        return self.nodes

    def get(self):
        return self.nodes[0]

    def mark_dead(self, node):
        self.marked.append(node)


def fake_es(pool):
    return SimpleNamespace(transport=SimpleNamespace(node_pool=pool))


def test_pinned_requests_go_to_that_node_and_the_pool_comes_back_afterwards():
    pool = FakePool(("127.213.0.11", 9200), ("127.213.0.12", 9200))
    es = fake_es(pool)
    with pinned_to(es, NodeOnHost("node-2", "127.213.0.12", 9200)):
        assert es.transport.node_pool.get() is pool.nodes[1]
        es.transport.node_pool.mark_dead(pool.nodes[1])  # everything else is the real pool's
    assert es.transport.node_pool is pool and pool.marked == [pool.nodes[1]]


def test_pool_is_restored_when_the_block_fails():
    pool = FakePool(("127.213.0.11", 9200))
    es = fake_es(pool)
    with pytest.raises(RuntimeError):
        with pinned_to(es, NodeOnHost("node-1", "127.213.0.11", 9200)):
            raise RuntimeError("boom")
    assert es.transport.node_pool is pool


def test_a_node_outside_the_target_hosts_is_an_error():
    es = fake_es(FakePool(("127.213.0.11", 9200)))
    with pytest.raises(NoNodeOnThisHost, match=r"not among Rally's --target-hosts \(127.213.0.11:9200\)"):
        with pinned_to(es, NodeOnHost("node-3", "127.213.0.13", 9200)):
            pass


def test_no_pin_leaves_the_client_alone():
    pool = FakePool(("127.0.0.1", 9200))
    es = fake_es(pool)
    with pinned_to(es, None) as same:
        assert same is es and es.transport.node_pool is pool
