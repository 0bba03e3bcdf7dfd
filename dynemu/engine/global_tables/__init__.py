"""engine/global_tables"""
