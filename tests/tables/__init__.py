"""savecraft.tables: Arrow, DuckDB, dask and Spark."""
