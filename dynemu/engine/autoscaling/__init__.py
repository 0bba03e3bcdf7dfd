"""engine/autoscaling"""
