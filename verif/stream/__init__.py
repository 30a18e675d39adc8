"""The streaming harness: cores that take operations over valid/ready streams, many in flight
(docs/streaming.md)."""
