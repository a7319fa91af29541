"""Port of core/src/test/java/kafka/admin/AclCommandTest.java (Kafka 3.9).

The argument checks are ported as they are (AclCommandOptions.checkArgs raising the usage error where Kafka exits
with it). The cluster cases are not here: the `...WithAuthorizer` ones (and the checks of the `--authorizer` and
`--command-config` options) are ZooKeeper mode's AclAuthorizer path, which the port keeps in the 1.0.2 tool; the
`...WithAdminAPI` ones each start a cluster of their own (ClusterTest), and tests/integration/test_kraft_acls.py drives
the tool's --add, --list and --remove on a real KRaft cluster instead.
"""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.core.admin.acl_command import UsageError, check_args, options_parser
from tests.kafka_tests.referee import kafka_test_class

_ZK = "ZooKeeper mode's AclAuthorizer path of the tool: the port's is Kafka 1.0.2's (kafka_edu/v1_0_2/core/admin)"
_CLUSTER = ("a KRaft cluster of its own per case (ClusterTest); tests/integration/test_kraft_acls.py runs the tool's "
            "--add/--list/--remove on a real cluster")

KAFKA = kafka_test_class(
    "3.9", "core/src/test/java/kafka/admin/AclCommandTest.java",
    cases=["testAclCliWithAuthorizer", "testAclCliWithAdminAPI", "testProducerConsumerCliWithAuthorizer",
           "testProducerConsumerCliWithAdminAPI", "testAclCliWithClientId", "testAclsOnPrefixedResourcesWithAuthorizer",
           "testAclsOnPrefixedResourcesWithAdminAPI", "testInvalidAuthorizerProperty",
           "testPatternTypesWithAuthorizer", "testPatternTypesWithAdminAPI",
           "testUseBootstrapServerOptWithAuthorizerOpt", "testRequiredArgsForAuthorizerOpt",
           "testUseCommandConfigOptWithoutBootstrapServerOpt", "testUseAuthorizerPropertiesOptWithBootstrapServerOpt",
           "testExactlyOneAction", "testUseListPrincipalsOptWithoutListOpt", "testUseProducerOptWithoutTopicOpt",
           "testUseIdempotentOptWithoutProducerOpt", "testUseConsumerOptWithoutRequiredOpt", "testInvalidArgs"],
    not_applicable={
        "testAclCliWithAuthorizer": _ZK, "testProducerConsumerCliWithAuthorizer": _ZK,
        "testAclsOnPrefixedResourcesWithAuthorizer": _ZK, "testInvalidAuthorizerProperty": _ZK,
        "testPatternTypesWithAuthorizer": _ZK, "testRequiredArgsForAuthorizerOpt": _ZK,
        "testUseCommandConfigOptWithoutBootstrapServerOpt": _ZK + "; and --command-config is left out",
    },
    not_ported={
        "testAclCliWithAdminAPI": _CLUSTER, "testProducerConsumerCliWithAdminAPI": _CLUSTER,
        "testAclCliWithClientId": _CLUSTER, "testAclsOnPrefixedResourcesWithAdminAPI": _CLUSTER,
        "testPatternTypesWithAdminAPI": _CLUSTER,
    },
)

ACL_AUTHORIZER = "kafka.security.authorizer.AclAuthorizer"
LOCALHOST = "localhost:9092"
AUTHORIZER = "--authorizer"
AUTHORIZER_PROPERTIES = "--authorizer-properties"
ADD, LIST, REMOVE = "--add", "--list", "--remove"
BOOTSTRAP_SERVER = "--bootstrap-server"
CONSUMER, PRODUCER, IDEMPOTENT = "--consumer", "--producer", "--idempotent"
GROUP, TOPIC, OPERATION = "--group", "--topic", "--operation"
ZOOKEEPER_CONNECT = "zookeeper.connect=localhost:2181"


def assert_initialize_invalid_options_exit_code_and_msg(args: list[str], expected_msg: str) -> None:
    with pytest.raises(UsageError) as e:
        check_args(options_parser().parse_args(args))
    assert expected_msg in str(e.value)


def check_not_throw(args: list[str]) -> None:
    check_args(options_parser().parse_args(args))


def test_use_bootstrap_server_opt_with_authorizer_opt() -> None:
    assert_initialize_invalid_options_exit_code_and_msg(
        [BOOTSTRAP_SERVER, LOCALHOST, AUTHORIZER, ACL_AUTHORIZER],
        "Only one of --bootstrap-server or --authorizer must be specified")


def test_use_authorizer_properties_opt_with_bootstrap_server_opt() -> None:
    assert_initialize_invalid_options_exit_code_and_msg(
        [BOOTSTRAP_SERVER, LOCALHOST, AUTHORIZER_PROPERTIES, ZOOKEEPER_CONNECT],
        "The --authorizer-properties option can only be used with --authorizer option")


def test_exactly_one_action() -> None:
    err_msg = "Command must include exactly one action: --list, --add, --remove. "
    assert_initialize_invalid_options_exit_code_and_msg([BOOTSTRAP_SERVER, LOCALHOST, ADD, LIST], err_msg)
    assert_initialize_invalid_options_exit_code_and_msg([BOOTSTRAP_SERVER, LOCALHOST, ADD, LIST, REMOVE], err_msg)


def test_use_list_principals_opt_without_list_opt() -> None:
    assert_initialize_invalid_options_exit_code_and_msg(
        [BOOTSTRAP_SERVER, LOCALHOST, ADD, "--principal", "User:CN=client"],
        "The --principal option is only available if --list is set")


def test_use_producer_opt_without_topic_opt() -> None:
    assert_initialize_invalid_options_exit_code_and_msg([BOOTSTRAP_SERVER, LOCALHOST, ADD, PRODUCER],
                                                        "With --producer you must specify a --topic")


def test_use_idempotent_opt_without_producer_opt() -> None:
    assert_initialize_invalid_options_exit_code_and_msg(
        [BOOTSTRAP_SERVER, LOCALHOST, ADD, IDEMPOTENT],
        "The --idempotent option is only available if --producer is set")


def test_use_consumer_opt_without_required_opt() -> None:
    assert_initialize_invalid_options_exit_code_and_msg(
        [BOOTSTRAP_SERVER, LOCALHOST, ADD, CONSUMER],
        "With --consumer you must specify a --topic and a --group and no --cluster or --transactional-id option "
        "should be specified.")
    check_not_throw([BOOTSTRAP_SERVER, LOCALHOST, ADD, CONSUMER, TOPIC, "test-topic", GROUP, "test-group"])


def test_invalid_args() -> None:
    assert_initialize_invalid_options_exit_code_and_msg([BOOTSTRAP_SERVER, LOCALHOST, LIST, PRODUCER],
                                                        "Option \"[list]\" can't be used with option \"[producer]\"")
    # Kafka's `--operation` takes the next token ("--topic" or nothing) as its value (jopt-simple); argparse wants
    # a value that is not an option, so one is given
    assert_initialize_invalid_options_exit_code_and_msg(
        [BOOTSTRAP_SERVER, LOCALHOST, ADD, PRODUCER, OPERATION, "Read"],
        "Option \"[producer]\" can't be used with option \"[operation]\"")
    assert_initialize_invalid_options_exit_code_and_msg(
        [BOOTSTRAP_SERVER, LOCALHOST, ADD, CONSUMER, OPERATION, "Read", TOPIC, "test-topic", GROUP, "test-group"],
        "Option \"[consumer]\" can't be used with option \"[operation]\"")
