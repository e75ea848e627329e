from tests.web.fake_tavily import fake_tavily  # noqa: F401 - the fixture, shared with tests/serving
