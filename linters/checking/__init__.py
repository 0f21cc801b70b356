"""How `ctxres check` runs: discovery of the artifacts, the rule registry, the engine that loads
each file once and runs the rules of its kind, suppression comments, and the report."""
