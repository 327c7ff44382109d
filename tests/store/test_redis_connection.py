"""The Redis client's connections as the store makes them."""

from __future__ import annotations


async def test_redis_connections_share_one_driver_info_and_read_no_package_metadata(monkeypatch, redis_url):
    """redis-py would read its package metadata for every connection it opens (for CLIENT
    SETINFO); the store's pools hand every connection one DriverInfo made at import instead."""
    import redis.utils

    from service.store.redis import connection

    def metadata_read():
        raise AssertionError("a connection read redis-py's package metadata")

    monkeypatch.setattr(redis.utils, "get_lib_version", metadata_read)
    client = connection.connect(redis_url)
    try:
        made = client.connection_pool.make_connection()
        assert made.driver_info is connection.DRIVER_INFO
        assert connection.DRIVER_INFO.formatted_name == "redis-py"
        assert connection.DRIVER_INFO.lib_version == redis.__version__
        assert await client.ping()   # a connection made this way still connects (and sends CLIENT SETINFO)
    finally:
        await client.aclose()
