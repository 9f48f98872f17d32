// Cluster and queue files (YAML) -> model and scheduler inputs.
