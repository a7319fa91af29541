"""Our own code, not a Kafka port: the process runner that starts ZooKeeper and brokers as OS processes for a run."""
