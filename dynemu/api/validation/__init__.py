"""api/validation"""
