"""NetworkPolicies compiled once against the cluster's equivalence classes into masks and port vectors."""
