"""Port of metadata/src/test/java/org/apache/kafka/metadata/storage/ScramParserTest.java (Kafka 3.9).

Kafka's two PerMechanismData constructors are PerMechanismData(...) (every field) and
PerMechanismData.from_config_string(mechanism, config).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

from kafka_edu.v1_0_2.clients.common.security.scram.scram_formatter import ScramFormatter
from kafka_edu.v1_0_2.clients.common.security.scram.scram_mechanism import ScramMechanism
from kafka_edu.v3_9.metadata.common.metadata.user_scram_credential_record import UserScramCredentialRecord
from kafka_edu.v3_9.metadata.metadata.storage import scram_parser
from kafka_edu.v3_9.metadata.metadata.storage.formatter_exception import FormatterException
from kafka_edu.v3_9.metadata.metadata.storage.scram_parser import PerMechanismData
from tests.kafka_tests.referee import kafka_test_class

KAFKA = kafka_test_class(
    "3.9", "metadata/src/test/java/org/apache/kafka/metadata/storage/ScramParserTest.java",
    cases=[
        "testSplitTrimmedConfigStringComponentOnNameEqualsFoo",
        "testSplitTrimmedConfigStringComponentOnNameEqualsQuotedFoo",
        "testSplitTrimmedConfigStringComponentOnNameEqualsEmpty",
        "testSplitTrimmedConfigStringComponentOnNameEqualsQuotedEmpty",
        "testSplitTrimmedConfigStringComponentWithNoEquals",
        "testRandomSalt",
        "testConfiguredSalt",
        "testDefaultIterations",
        "testConfiguredIterations",
        "testParsePerMechanismArgument",
        "testParsePerMechanismArgumentWithoutEqualsSign",
        "testParsePerMechanismArgumentWithUnsupportedScramMethod",
        "testParsePerMechanismArgumentWithConfigStringWithoutBraces",
        "testParsePerMechanismArgumentWithConfigStringWithoutEndBrace",
        "testParsePerMechanismData",
        "testParsePerMechanismDataFailsWithoutName",
        "testParsePerMechanismDataFailsWithoutPassword",
        "testParsePerMechanismDataFailsWithExtraArguments",
        "testParsePerMechanismDataWithIterations",
        "testParsePerMechanismDataWithConfiguredSalt",
        "testParsePerMechanismDataWithIterationsAndConfiguredSalt",
        "testParsePerMechanismDataWithConfiguredSaltedPasswordFailsWithoutSalt",
        "testParsePerMechanismDataWithConfiguredSaltedPassword",
        "testPerMechanismDataToRecord",
    ],
)


def _signed(values: list[int]) -> bytes:
    return bytes(v & 0xFF for v in values)  # Java's byte[] literals are signed


TEST_SALT = _signed([49, 108, 118, 52, 112, 100, 110, 119, 52, 102, 119, 113,
                     55, 110, 111, 116, 99, 120, 109, 48, 121, 121, 49, 107, 55, 113])

TEST_SALTED_PASSWORD = _signed([-103, 61, 50, -55, 69, 49, -98, 82, 90, 11, -33, 71, 94,
                                4, 83, 73, -119, 91, -70, -90, -72, 21, 33, -83, 36,
                                34, 95, 76, -53, -29, 96, 33])


def assert_formatter_exception(message: str, call: Callable[[], object]) -> None:
    with pytest.raises(FormatterException) as e:
        call()
    assert str(e.value) == message


def test_split_trimmed_config_string_component_on_name_equals_foo() -> None:
    assert scram_parser.split_trimmed_config_string_component("name=foo") == ("name", "foo")


def test_split_trimmed_config_string_component_on_name_equals_quoted_foo() -> None:
    assert scram_parser.split_trimmed_config_string_component('name="foo"') == ("name", "foo")


def test_split_trimmed_config_string_component_on_name_equals_empty() -> None:
    assert scram_parser.split_trimmed_config_string_component("name=") == ("name", "")


def test_split_trimmed_config_string_component_on_name_equals_quoted_empty() -> None:
    assert scram_parser.split_trimmed_config_string_component('name=""') == ("name", "")


def test_split_trimmed_config_string_component_with_no_equals() -> None:
    assert_formatter_exception("No equals sign found in SCRAM component: name",
                               lambda: scram_parser.split_trimmed_config_string_component("name"))


def test_random_salt() -> None:
    data = PerMechanismData(ScramMechanism.SCRAM_SHA_256, "bob", None, None, "my pass", None)
    deadline = time.monotonic() + 10
    while data.salt() == data.salt():  # retried until two salts differ, within Kafka's 10 s
        assert time.monotonic() < deadline, "every salt was the same"


def test_configured_salt() -> None:
    assert PerMechanismData(ScramMechanism.SCRAM_SHA_256, "bob", TEST_SALT, None, "my pass", None).salt() == TEST_SALT


def test_default_iterations() -> None:
    assert PerMechanismData(ScramMechanism.SCRAM_SHA_256, "bob", None, None, "my pass", None).iterations() == 4096


def test_configured_iterations() -> None:
    assert PerMechanismData(ScramMechanism.SCRAM_SHA_256, "bob", None, 8192, "my pass", None).iterations() == 8192


def test_parse_per_mechanism_argument() -> None:
    assert scram_parser.parse_per_mechanism_argument("SCRAM-SHA-512=[name=scram-admin,password=scram-user-secret]") == (
        ScramMechanism.SCRAM_SHA_512, "name=scram-admin,password=scram-user-secret")


def test_parse_per_mechanism_argument_without_equals_sign() -> None:
    assert_formatter_exception("Failed to find equals sign in SCRAM argument 'SCRAM-SHA-512'",
                               lambda: scram_parser.parse_per_mechanism_argument("SCRAM-SHA-512"))


def test_parse_per_mechanism_argument_with_unsupported_scram_method() -> None:
    assert_formatter_exception(
        "The add-scram mechanism SCRAM-SHA-UNSUPPORTED is not supported.",
        lambda: scram_parser.parse_per_mechanism_argument(
            "SCRAM-SHA-UNSUPPORTED=[name=scram-admin,password=scram-user-secret]"))


def test_parse_per_mechanism_argument_with_config_string_without_braces() -> None:
    assert_formatter_exception(
        "Expected configuration string to start with [",
        lambda: scram_parser.parse_per_mechanism_argument("SCRAM-SHA-256=name=scram-admin,password=scram-user-secret"))


def test_parse_per_mechanism_argument_with_config_string_without_end_brace() -> None:
    assert_formatter_exception(
        "Expected configuration string to end with ]",
        lambda: scram_parser.parse_per_mechanism_argument("SCRAM-SHA-256=[name=scram-admin,password=scram-user-secret"))


def test_parse_per_mechanism_data() -> None:
    assert PerMechanismData.from_config_string(ScramMechanism.SCRAM_SHA_256, "name=bob,password=mypass") == (
        PerMechanismData(ScramMechanism.SCRAM_SHA_256, "bob", None, None, "mypass", None))


def test_parse_per_mechanism_data_fails_without_name() -> None:
    assert_formatter_exception("You must supply 'name' to add-scram",
                               lambda: PerMechanismData.from_config_string(ScramMechanism.SCRAM_SHA_256,
                                                                           "password=mypass"))


def test_parse_per_mechanism_data_fails_without_password() -> None:
    assert_formatter_exception("You must supply one of 'password' or 'saltedpassword' to add-scram",
                               lambda: PerMechanismData.from_config_string(ScramMechanism.SCRAM_SHA_256, "name=bar"))


def test_parse_per_mechanism_data_fails_with_extra_arguments() -> None:
    assert_formatter_exception(
        "Unknown SCRAM configurations: unknown, unknown2",
        lambda: PerMechanismData.from_config_string(
            ScramMechanism.SCRAM_SHA_256, "name=bob,password=mypass,unknown=something,unknown2=somethingelse"))


def test_parse_per_mechanism_data_with_iterations() -> None:
    assert PerMechanismData.from_config_string(
        ScramMechanism.SCRAM_SHA_256, "name=bob,password=my pass,iterations=8192") == PerMechanismData(
        ScramMechanism.SCRAM_SHA_256, "bob", None, 8192, "my pass", None)


def test_parse_per_mechanism_data_with_configured_salt() -> None:
    assert PerMechanismData.from_config_string(
        ScramMechanism.SCRAM_SHA_512, 'name=bob,password=my pass,salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E="'
    ) == PerMechanismData(ScramMechanism.SCRAM_SHA_512, "bob", TEST_SALT, None, "my pass", None)


def test_parse_per_mechanism_data_with_iterations_and_configured_salt() -> None:
    assert PerMechanismData.from_config_string(
        ScramMechanism.SCRAM_SHA_256,
        'name=bob,password=my pass,iterations=8192,salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E="'
    ) == PerMechanismData(ScramMechanism.SCRAM_SHA_256, "bob", TEST_SALT, 8192, "my pass", None)


def test_parse_per_mechanism_data_with_configured_salted_password_fails_without_salt() -> None:
    assert_formatter_exception(
        "You must supply 'salt' with 'saltedpassword' to add-scram",
        lambda: PerMechanismData.from_config_string(
            ScramMechanism.SCRAM_SHA_256, 'name=alice,saltedpassword="mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE="'))


def test_parse_per_mechanism_data_with_configured_salted_password() -> None:
    assert PerMechanismData.from_config_string(
        ScramMechanism.SCRAM_SHA_256,
        'name=alice,salt="MWx2NHBkbnc0ZndxN25vdGN4bTB5eTFrN3E=",'
        'saltedpassword="mT0yyUUxnlJaC99HXgRTSYlbuqa4FSGtJCJfTMvjYCE="'
    ) == PerMechanismData(ScramMechanism.SCRAM_SHA_256, "alice", TEST_SALT, None, None, TEST_SALTED_PASSWORD)


def test_per_mechanism_data_to_record() -> None:
    formatter = ScramFormatter(ScramMechanism.SCRAM_SHA_512)
    assert PerMechanismData(ScramMechanism.SCRAM_SHA_512, "alice", TEST_SALT, None, None,
                            TEST_SALTED_PASSWORD).to_record() == UserScramCredentialRecord(
        name="alice", mechanism=2, salt=TEST_SALT,  # ScramMechanism.SCRAM_SHA_512.type()
        stored_key=formatter.stored_key(formatter.client_key(TEST_SALTED_PASSWORD)),
        server_key=formatter.server_key(TEST_SALTED_PASSWORD), iterations=4096)
