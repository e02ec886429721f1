// ge::TypeUtils: names of data types and formats (reads the table in graph/types.h).
#pragma once

#include <string>

#include "graph/types.h"

namespace ge {

class TypeUtils {
  public:
    static std::string DataTypeToSerialString(DataType t) {
        const auto* f = data_type_facts(t);
        return f ? f->serial : "UNDEFINED";
    }
    static DataType SerialStringToDataType(const std::string& s) {
        for (const auto& f : kDataTypeTable)
            if (s == f.serial) return f.type;
        return DT_UNDEFINED;
    }
    static std::string FormatToSerialString(Format f) { return format_name(f); }
    static Format SerialStringToFormat(const std::string& s) {
        for (const auto& r : kFormatTable)
            if (s == r.name) return r.format;
        return FORMAT_RESERVED;
    }
    static bool GetDataTypeLength(DataType t, uint32_t& len) {
        len = GetSizeByDataType(t);
        return len != 0;
    }
};

}  // namespace ge
