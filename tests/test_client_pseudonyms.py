from omnium.clients import client_pseudonym, network_of


def test_ipv6_addresses_in_one_64_share_a_network():
    expected = "2001:db8:1:2::/64"
    assert network_of("2001:db8:1:2::a") == network_of("2001:db8:1:2:ffff::1") == expected


def test_ipv4_mapped_ipv6_counts_as_the_ipv4_address():
    assert network_of("::ffff:192.0.2.7") == "192.0.2.7"


def test_pseudonym_depends_on_the_key():
    assert client_pseudonym("192.0.2.7", key="a") != client_pseudonym("192.0.2.7", key="b")


def test_pseudonym_never_contains_the_address():
    assert "192.0.2.7" not in client_pseudonym("192.0.2.7", key="k")
