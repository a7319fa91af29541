"""Port of tools/src/test/java/org/apache/kafka/tools/reassign/ReassignPartitionsCommandArgsTest.java (Kafka 3.9).

Exit.setExitProcedure turning printUsageAndExit into an exception is the port's UsageError.
"""

from __future__ import annotations

import pytest

from kafka_edu.v3_9.tools.tools.reassign.reassign_partitions_command import (
    HELP_TEXT,
    UsageError,
    validate_and_parse_args,
)
from tests.kafka_tests.referee import kafka_test_class

_THROTTLES = ("replication throttles (--throttle, --replica-alter-log-dirs-throttle) are not ported: the port's "
              "brokers have no quota managers")
_DEFAULTS = (_THROTTLES + "; this case checks --throttle's default with --timeout's, which "
             "test_timeout_defaults_and_goes_with_execute_and_cancel_only checks")

KAFKA = kafka_test_class(
    "3.9", "tools/src/test/java/org/apache/kafka/tools/reassign/ReassignPartitionsCommandArgsTest.java",
    cases=["shouldCorrectlyParseValidMinimumGenerateOptions", "shouldCorrectlyParseValidMinimumExecuteOptions",
           "shouldCorrectlyParseValidMinimumVerifyOptions", "shouldAllowThrottleOptionOnExecute",
           "shouldUseDefaultsIfEnabled", "testList", "testCancelWithPreserveThrottlesOption", "shouldFailIfNoArgs",
           "shouldFailIfBlankArg", "shouldFailIfMultipleActions", "shouldNotAllowExecuteWithTopicsOption",
           "shouldNotAllowExecuteWithBrokerList", "shouldNotAllowExecuteWithoutReassignmentOption",
           "testMissingBootstrapServerArgumentForExecute", "shouldNotAllowGenerateWithoutBrokersAndTopicsOptions",
           "shouldNotAllowGenerateWithoutBrokersOption", "shouldNotAllowGenerateWithoutTopicsOption",
           "shouldNotAllowGenerateWithThrottleOption", "shouldNotAllowGenerateWithReassignmentOption",
           "shouldPrintHelpTextIfHelpArg", "shouldNotAllowVerifyWithoutReassignmentOption",
           "shouldNotAllowBrokersListWithVerifyOption", "shouldNotAllowThrottleWithVerifyOption",
           "shouldNotAllowTopicsOptionWithVerify", "shouldNotAllowCancelWithoutBootstrapServerOption",
           "shouldNotAllowCancelWithoutReassignmentJsonFile"],
    not_applicable={"shouldAllowThrottleOptionOnExecute": _THROTTLES, "shouldUseDefaultsIfEnabled": _DEFAULTS,
                    "shouldNotAllowGenerateWithThrottleOption": _THROTTLES,
                    "shouldNotAllowThrottleWithVerifyOption": _THROTTLES},
)

MISSING_BOOTSTRAP_SERVER_MSG = "Please specify --bootstrap-server"
BOOTSTRAP = ["--bootstrap-server", "localhost:1234"]


def should_fail_with(msg: str, args: list[str]) -> None:
    with pytest.raises(UsageError) as e:
        validate_and_parse_args(args)
    assert str(e.value).startswith(msg), f"Expected exception with message:\n[{msg}]\nbut was\n[{e.value}]"


def test_should_correctly_parse_valid_minimum_generate_options() -> None:
    validate_and_parse_args([*BOOTSTRAP, "--generate", "--broker-list", "101,102", "--topics-to-move-json-file",
                             "myfile.json"])


def test_should_correctly_parse_valid_minimum_execute_options() -> None:
    validate_and_parse_args([*BOOTSTRAP, "--execute", "--reassignment-json-file", "myfile.json"])


def test_should_correctly_parse_valid_minimum_verify_options() -> None:
    validate_and_parse_args([*BOOTSTRAP, "--verify", "--reassignment-json-file", "myfile.json"])


def test_list() -> None:
    validate_and_parse_args(["--list", *BOOTSTRAP])


def test_cancel_with_preserve_throttles_option() -> None:
    validate_and_parse_args(["--cancel", *BOOTSTRAP, "--reassignment-json-file", "myfile.json",
                             "--preserve-throttles"])


def test_should_fail_if_no_args() -> None:
    should_fail_with(HELP_TEXT, [])


def test_should_fail_if_blank_arg() -> None:
    should_fail_with("Command must include exactly one action", [" "])


def test_should_fail_if_multiple_actions() -> None:
    should_fail_with("Command must include exactly one action",
                     [*BOOTSTRAP, "--execute", "--verify", "--reassignment-json-file", "myfile.json"])


def test_should_not_allow_execute_with_topics_option() -> None:
    should_fail_with('Option "[topics-to-move-json-file]" can\'t be used with action "[execute]"',
                     [*BOOTSTRAP, "--execute", "--reassignment-json-file", "myfile.json",
                      "--topics-to-move-json-file", "myfile.json"])


def test_should_not_allow_execute_with_broker_list() -> None:
    should_fail_with('Option "[broker-list]" can\'t be used with action "[execute]"',
                     [*BOOTSTRAP, "--execute", "--reassignment-json-file", "myfile.json", "--broker-list", "101,102"])


def test_should_not_allow_execute_without_reassignment_option() -> None:
    should_fail_with('Missing required argument "[reassignment-json-file]"', [*BOOTSTRAP, "--execute"])


def test_missing_bootstrap_server_argument_for_execute() -> None:
    should_fail_with(MISSING_BOOTSTRAP_SERVER_MSG, ["--execute"])


def test_should_not_allow_generate_without_brokers_and_topics_options() -> None:
    should_fail_with('Missing required argument "[topics-to-move-json-file]"', [*BOOTSTRAP, "--generate"])


def test_should_not_allow_generate_without_brokers_option() -> None:
    should_fail_with('Missing required argument "[broker-list]"',
                     [*BOOTSTRAP, "--topics-to-move-json-file", "myfile.json", "--generate"])


def test_should_not_allow_generate_without_topics_option() -> None:
    should_fail_with('Missing required argument "[topics-to-move-json-file]"',
                     [*BOOTSTRAP, "--broker-list", "101,102", "--generate"])


def test_should_not_allow_generate_with_reassignment_option() -> None:
    should_fail_with('Option "[reassignment-json-file]" can\'t be used with action "[generate]"',
                     [*BOOTSTRAP, "--generate", "--broker-list", "101,102", "--topics-to-move-json-file",
                      "myfile.json", "--reassignment-json-file", "myfile.json"])


def test_should_print_help_text_if_help_arg() -> None:
    should_fail_with(HELP_TEXT, ["--help"])


def test_should_not_allow_verify_without_reassignment_option() -> None:
    should_fail_with('Missing required argument "[reassignment-json-file]"', [*BOOTSTRAP, "--verify"])


def test_should_not_allow_brokers_list_with_verify_option() -> None:
    should_fail_with('Option "[broker-list]" can\'t be used with action "[verify]"',
                     [*BOOTSTRAP, "--verify", "--broker-list", "100,101", "--reassignment-json-file", "myfile.json"])


def test_should_not_allow_topics_option_with_verify() -> None:
    should_fail_with('Option "[topics-to-move-json-file]" can\'t be used with action "[verify]"',
                     [*BOOTSTRAP, "--verify", "--reassignment-json-file", "myfile.json",
                      "--topics-to-move-json-file", "myfile.json"])


def test_should_not_allow_cancel_without_bootstrap_server_option() -> None:
    should_fail_with(MISSING_BOOTSTRAP_SERVER_MSG, ["--cancel"])


def test_should_not_allow_cancel_without_reassignment_json_file() -> None:
    should_fail_with('Missing required argument "[reassignment-json-file]"',
                     ["--cancel", *BOOTSTRAP, "--preserve-throttles"])


# -- the port's own case ---------------------------------------------------------------------------------------------

def test_timeout_defaults_and_goes_with_execute_and_cancel_only() -> None:
    opts = validate_and_parse_args([*BOOTSTRAP, "--execute", "--reassignment-json-file", "myfile.json"])
    assert opts.timeout == 10000
    opts = validate_and_parse_args([*BOOTSTRAP, "--execute", "--reassignment-json-file", "myfile.json",
                                    "--timeout", "500"])
    assert opts.timeout == 500
    opts = validate_and_parse_args(["--cancel", *BOOTSTRAP, "--reassignment-json-file", "myfile.json",
                                    "--timeout", "500"])
    assert opts.timeout == 500
    should_fail_with('Option "[timeout]" can\'t be used with action "[verify]"',
                     [*BOOTSTRAP, "--verify", "--reassignment-json-file", "myfile.json", "--timeout", "500"])
    should_fail_with("Cannot parse argument 'soon' of option timeout",
                     [*BOOTSTRAP, "--execute", "--reassignment-json-file", "myfile.json", "--timeout", "soon"])
