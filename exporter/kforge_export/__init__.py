"""The exporter's parts (exporter/export_task.py runs them): loading a task and building its
configs, watching its random draws, describing fn's arguments, the task filters, the TorchScript
references, the forward and backward configs."""
