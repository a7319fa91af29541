"""The describers of attributes.py, by area of the port: lifecycle (LC), request path (NW), controller (CT),
replication and groups."""
