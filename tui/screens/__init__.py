"""One screen per view: pods, pod detail, matrix, explain, audit, nodes, policies, help, export."""
