"""Port of metadata/src/main/java/org/apache/kafka/metadata/authorizer/StandardAuthorizerData.java (Kafka 3.9): the
StandardAuthorizer's configuration and ACLs, and the search that decides an action."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import Any

from kafka_edu.v1_0_2.clients.common.errors import IllegalArgumentException
from kafka_edu.v1_0_2.clients.common.security.auth.kafka_principal import USER_TYPE, KafkaPrincipal
from kafka_edu.v3_9.clients.common.acl.acl_binding import AclBinding, AclBindingFilter
from kafka_edu.v3_9.clients.common.acl.acl_operation import AclOperation, AclPermissionType
from kafka_edu.v3_9.clients.common.errors.authorizer_not_ready_exception import AuthorizerNotReadyException
from kafka_edu.v3_9.clients.common.resource.pattern_type import PatternType
from kafka_edu.v3_9.clients.server.authorizer.action import Action, AuthorizationResult
from kafka_edu.v3_9.metadata.metadata.authorizer.acl_cache import AclCache
from kafka_edu.v3_9.metadata.metadata.authorizer.acl_mutator import AclMutator
from kafka_edu.v3_9.metadata.metadata.authorizer.standard_acl import StandardAcl

ALLOWED, DENIED = AuthorizationResult.ALLOWED, AuthorizationResult.DENIED

TRACE = 5  # log4j's TRACE, below logging.DEBUG

WILDCARD = "*"  # the host or resource name of ACLs that match any
WILDCARD_PRINCIPAL = "User:*"
WILDCARD_KAFKA_PRINCIPAL = KafkaPrincipal(USER_TYPE, "*")

# The operations that imply DESCRIBE, and DESCRIBE_CONFIGS, in an ALLOW ACL.
IMPLIES_DESCRIBE = frozenset({AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE,
                              AclOperation.ALTER})
IMPLIES_DESCRIBE_CONFIGS = frozenset({AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS})


def _create_logger(node_id: int) -> logging.LoggerAdapter:
    return logging.LoggerAdapter(logging.getLogger("org.apache.kafka.metadata.authorizer.StandardAuthorizerData"),
                                 {"log_context": f"[StandardAuthorizer {node_id}] "})


def _audit_logger() -> logging.Logger:
    return logging.getLogger("kafka.authorizer.logger")


class StandardAuthorizerData:
    """Not thread-safe: the StandardAuthorizer swaps whole copies (copy_with_*) and mutates the ACLs of the current
    one only from the metadata publisher's thread; each change makes a new AclCache, so a reader keeps a
    consistent set."""

    @staticmethod
    def create_empty() -> StandardAuthorizerData:
        return StandardAuthorizerData(_create_logger(-1), None, False, frozenset(), DENIED, AclCache())

    def __init__(self, log: logging.LoggerAdapter, acl_mutator: AclMutator | None, loading_complete: bool,
                 super_users: frozenset[str], default_result: AuthorizationResult, acl_cache: AclCache) -> None:
        self.log = log
        self.audit_log = _audit_logger()
        self.acl_mutator = acl_mutator
        self.loading_complete = loading_complete
        self._super_users = super_users
        self.no_acl_rule = _DefaultRule(default_result)
        self._acl_cache = acl_cache

    def copy_with_new_acl_mutator(self, new_acl_mutator: AclMutator | None) -> StandardAuthorizerData:
        return StandardAuthorizerData(self.log, new_acl_mutator, self.loading_complete, self._super_users,
                                      self.no_acl_rule.result, self._acl_cache)

    def copy_with_new_loading_complete(self, new_loading_complete: bool) -> StandardAuthorizerData:
        return StandardAuthorizerData(self.log, self.acl_mutator, new_loading_complete, self._super_users,
                                      self.no_acl_rule.result, self._acl_cache)

    def copy_with_new_config(self, node_id: int, new_super_users: Iterable[str],
                             new_default_result: AuthorizationResult) -> StandardAuthorizerData:
        return StandardAuthorizerData(_create_logger(node_id), self.acl_mutator, self.loading_complete,
                                      frozenset(new_super_users), new_default_result, self._acl_cache)

    def copy_with_new_acls(self, acl_cache: AclCache) -> StandardAuthorizerData:
        new_data = StandardAuthorizerData(self.log, self.acl_mutator, self.loading_complete, self._super_users,
                                          self.no_acl_rule.result, acl_cache)
        self.log.info("Initialized with %d acl(s).", acl_cache.count())
        return new_data

    def add_acl(self, id: uuid.UUID, acl: StandardAcl) -> None:
        try:
            self._acl_cache = self._acl_cache.add_acl(id, acl)
            self.log.debug("Added ACL %s: %s", id, acl)
        except Exception:
            self.log.exception("addAcl error")
            raise

    def remove_acl(self, id: uuid.UUID) -> None:
        try:
            acl_cache_snapshot = self._acl_cache.remove_acl(id)
            self.log.debug("Removed ACL %s: %s", id, self._acl_cache.get_acl(id))
            self._acl_cache = acl_cache_snapshot
        except Exception:
            self.log.exception("removeAcl error")
            raise

    def super_users(self) -> frozenset[str]:
        return self._super_users

    def default_result(self) -> AuthorizationResult:
        return self.no_acl_rule.result

    def acl_count(self) -> int:
        return self._acl_cache.count()

    def authorize(self, request_context: Any, action: Action) -> AuthorizationResult:
        """Any matching DENY ACL denies, whatever ALLOW ACLs match; with no matching ACL, the default result (DENIED
        unless allow.everyone.if.no.acl.found), or DENIED if the resource has ACLs, just none for this caller."""
        pattern = action.resource_pattern()
        if pattern.pattern_type is not PatternType.LITERAL:
            raise IllegalArgumentException(f"Only literal resources are supported. Got: {pattern.pattern_type}")
        principal = base_kafka_principal(request_context)
        if str(principal) in self._super_users:
            rule: _MatchingRule = _SUPER_USER_RULE
        elif not self.loading_complete:
            raise AuthorizerNotReadyException()
        else:
            rule = self._find_acl_rule(matching_principals(request_context), request_context.client_address, action)
        self._log_audit_message(principal, request_context, action, rule)
        return rule.result

    def _build_audit_message(self, principal: KafkaPrincipal, context: Any, action: Action,
                             rule: _MatchingRule) -> str:
        pattern = action.resource_pattern()
        return (f"Principal = {principal} is {'Allowed' if rule.result is ALLOWED else 'Denied'} operation = "
                f"{action.operation} from host = {context.client_address} on resource = "
                f"{_resource_type_name(pattern.resource_type)}:{pattern.pattern_type}:{pattern.name} for request = "
                f"{_request_type_name(context)} with resourceRefCount = {action.resource_reference_count} based on "
                f"rule {rule}")

    def _log_audit_message(self, principal: KafkaPrincipal, request_context: Any, action: Action,
                           rule: _MatchingRule) -> None:
        if rule.result is ALLOWED:
            # access granted because of this answer: debug; only asked (authorized operations): trace
            if action.log_if_allowed and self.audit_log.isEnabledFor(logging.DEBUG):
                self.audit_log.debug(self._build_audit_message(principal, request_context, action, rule))
            elif self.audit_log.isEnabledFor(TRACE):
                self.audit_log.log(TRACE, self._build_audit_message(principal, request_context, action, rule))
        elif action.log_if_denied:
            # access explicitly asked for and refused: info; a filter or authorized operations: trace
            self.audit_log.info(self._build_audit_message(principal, request_context, action, rule))
        elif self.audit_log.isEnabledFor(TRACE):
            self.audit_log.log(TRACE, self._build_audit_message(principal, request_context, action, rule))

    def _find_acl_rule(self, matching_principals: set[KafkaPrincipal], host: str, action: Action) -> _MatchingRule:
        """The ACLs are sorted by resource type, then by REVERSE resource name, so those that may apply to a name
        (the literal name, and the prefixes of it) follow the name's own place; a scan starts there and jumps back
        to the shorter common prefix whenever it leaves a run of prefixes. The literal `*` ACLs are a second scan."""
        matching_rule_builder = _MatchingRuleBuilder(self.no_acl_rule)
        pattern = action.resource_pattern()
        # UNKNOWN (and "" and the UNKNOWN enums) sort before everything else at the same name
        exemplar = StandardAcl(pattern.resource_type, pattern.name, PatternType.UNKNOWN, "", "",
                               AclOperation.UNKNOWN, AclPermissionType.UNKNOWN)
        acl_cache_snapshot = self._acl_cache
        self._check_section(acl_cache_snapshot, action, exemplar, matching_principals, host, matching_rule_builder)
        if matching_rule_builder.found_deny():
            return matching_rule_builder.build()
        exemplar = StandardAcl(pattern.resource_type, WILDCARD, PatternType.LITERAL, "", "",
                               AclOperation.UNKNOWN, AclPermissionType.UNKNOWN)
        self._check_section(acl_cache_snapshot, action, exemplar, matching_principals, host, matching_rule_builder)
        return matching_rule_builder.build()

    @staticmethod
    def matches_up_to(resource: str, pattern: str) -> int:
        i = 0
        while i < len(resource) and i < len(pattern) and resource[i] == pattern[i]:
            i += 1
        return i

    def _check_section(self, acl_cache_snapshot: AclCache, action: Action, exemplar: StandardAcl,
                       matching_principals: set[KafkaPrincipal], host: str,
                       matching_rule_builder: _MatchingRuleBuilder) -> None:
        pattern = action.resource_pattern()
        resource_name = pattern.name
        acls = acl_cache_snapshot.acls_by_resource()
        index = acl_cache_snapshot.tail_index(exemplar)
        while index < len(acls):
            acl = acls[index]
            index += 1
            if acl.resource_type is not pattern.resource_type:
                break  # past the section of this resource type
            matches_up_to = self.matches_up_to(resource_name, acl.resource_name)
            if matches_up_to == len(acl.resource_name):
                if acl.pattern_type is PatternType.LITERAL and matches_up_to != len(resource_name):
                    # a literal ACL on a prefix of the name: not ours, but prefixed ACLs may follow
                    continue
            elif not (acl.resource_name == WILDCARD and acl.pattern_type is PatternType.LITERAL):
                # out of the run of prefixes of the name: jump to where the shorter common prefix sorts
                exemplar = StandardAcl(exemplar.resource_type, exemplar.resource_name[:matches_up_to],
                                       exemplar.pattern_type, exemplar.principal, exemplar.host, exemplar.operation,
                                       exemplar.permission_type)
                index = acl_cache_snapshot.tail_index(exemplar)
                continue
            matching_rule_builder.has_resource_acls = True
            result = find_result(action, matching_principals, host, acl)
            if result is ALLOWED:
                matching_rule_builder.allow_acl = acl
            elif result is DENIED:
                matching_rule_builder.deny_acl = acl
                return

    def acls(self, filter: AclBindingFilter) -> Iterable[AclBinding]:
        """A consistent list: it is built from one AclCache, which never changes."""
        return self._acl_cache.acls(filter)

    def get_acl_cache(self) -> AclCache:
        return self._acl_cache


def find_result_for_context(action: Action, request_context: Any, acl: StandardAcl) -> AuthorizationResult | None:
    """StandardAuthorizerData.findResult(action, requestContext, acl)."""
    return find_result(action, matching_principals(request_context), request_context.client_address, acl)


def base_kafka_principal(context: Any) -> KafkaPrincipal:
    """The session's principal as a plain KafkaPrincipal (a subclass would compare unequal to the ACLs' ones)."""
    session_principal = context.principal
    if type(session_principal) is KafkaPrincipal:
        return session_principal
    return KafkaPrincipal(session_principal.principal_type, session_principal.name)


def matching_principals(context: Any) -> set[KafkaPrincipal]:
    return {base_kafka_principal(context), WILDCARD_KAFKA_PRINCIPAL}


def find_result(action: Action, matching_principals: set[KafkaPrincipal], host: str,
                acl: StandardAcl) -> AuthorizationResult | None:
    """What `acl` says of the action, None if it does not apply (the resource name is assumed to match). READ,
    WRITE, DELETE and ALTER imply DESCRIBE, and ALTER_CONFIGS implies DESCRIBE_CONFIGS, in ALLOW ACLs only."""
    if acl.kafka_principal() not in matching_principals:
        return None
    if acl.host != WILDCARD and acl.host != host:
        return None
    operation = action.acl_operation()
    if acl.operation is not AclOperation.ALL:
        if acl.permission_type is AclPermissionType.ALLOW:
            if operation is AclOperation.DESCRIBE:
                if acl.operation not in IMPLIES_DESCRIBE:
                    return None
            elif operation is AclOperation.DESCRIBE_CONFIGS:
                if acl.operation not in IMPLIES_DESCRIBE_CONFIGS:
                    return None
            elif operation is not acl.operation:
                return None
        elif operation is not acl.operation:
            return None
    return ALLOWED if acl.permission_type is AclPermissionType.ALLOW else DENIED


def _resource_type_name(resource_type: Any) -> str:
    """SecurityUtils.resourceTypeName: the camel-case name ("Topic", "TransactionalId")."""
    return "".join(part.capitalize() for part in resource_type.name.split("_"))


def _request_type_name(context: Any) -> str:
    header = getattr(context, "header", None)
    api_key = getattr(header, "api_key", None)
    return getattr(api_key, "api_name", str(api_key))


class _MatchingRule:
    result: AuthorizationResult


class _SuperUserRule(_MatchingRule):
    result = ALLOWED

    def __str__(self) -> str:
        return "SuperUser"


_SUPER_USER_RULE = _SuperUserRule()


class _DefaultRule(_MatchingRule):
    def __init__(self, result: AuthorizationResult) -> None:
        self.result = result

    def __str__(self) -> str:
        return "DefaultAllow" if self.result is ALLOWED else "DefaultDeny"


class _MatchingAclRule(_MatchingRule):
    def __init__(self, acl: StandardAcl, result: AuthorizationResult) -> None:
        self.acl = acl
        self.result = result

    def __str__(self) -> str:
        return f"MatchingAcl(acl={self.acl})"


class _MatchingRuleBuilder:
    DENY_RULE = _DefaultRule(DENIED)

    def __init__(self, no_acl_rule: _DefaultRule) -> None:
        self.no_acl_rule = no_acl_rule
        self.deny_acl: StandardAcl | None = None
        self.allow_acl: StandardAcl | None = None
        self.has_resource_acls = False

    def found_deny(self) -> bool:
        return self.deny_acl is not None

    def build(self) -> _MatchingRule:
        if self.deny_acl is not None:
            return _MatchingAclRule(self.deny_acl, DENIED)
        if self.allow_acl is not None:
            return _MatchingAclRule(self.allow_acl, ALLOWED)
        if not self.has_resource_acls:
            return self.no_acl_rule
        return _MatchingRuleBuilder.DENY_RULE
