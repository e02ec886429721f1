"""AscendC API catalog (data files + loader): `load_catalog().get/names/closest`."""

from ascend_tools.catalog.catalog import Catalog, load_catalog, similarity
from ascend_tools.catalog.models import ApiEntry, ApiKind, ApiParam, Unit

__all__ = ["ApiEntry", "ApiKind", "ApiParam", "Catalog", "Unit", "load_catalog", "similarity"]
