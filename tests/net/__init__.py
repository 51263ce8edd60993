"""The network: packets, client, server, load test."""
