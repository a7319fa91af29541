"""Describers for the TX spans: exactly-once transactions (KIP-98, Kafka 1.0.2; see kafka_edu/tracing/attributes.py).

Two sections: the coordinator's side (TransactionCoordinator, TransactionStateManager, the marker channel, the group
coordinator's transactional offsets) and the partition leaders' side (WriteTxnMarkers: the control batch each leader
appends, the last stable offset it moves to, and the aborted-transaction index).
"""

from __future__ import annotations

# -- the coordinator's side ------------------------------------------------------------------------------------------


# -- the partition leaders' side: KafkaApis.handleWriteTxnMarkersRequest (TX.write) ----------------------------------
