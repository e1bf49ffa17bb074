#include "common/coding.h"

namespace bloomroute {

Status ByteReader::Truncated(const char* what) const {
  return Status::Corruption(std::string("truncated input reading ") + what);
}

Status ByteReader::ReadFixed8(uint8_t* v, const char* what) {
  if (input_.size() < 1) return Truncated(what);
  *v = static_cast<uint8_t>(input_[0]);
  input_.remove_prefix(1);
  return Status::OK();
}

Status ByteReader::ReadFixed32(uint32_t* v, const char* what) {
  if (input_.size() < 4) return Truncated(what);
  *v = DecodeFixed32(input_.data());
  input_.remove_prefix(4);
  return Status::OK();
}

Status ByteReader::ReadFixed64(uint64_t* v, const char* what) {
  if (input_.size() < 8) return Truncated(what);
  *v = DecodeFixed64(input_.data());
  input_.remove_prefix(8);
  return Status::OK();
}

Status ByteReader::ReadDouble(double* v, const char* what) {
  uint64_t bits;
  BLOOMROUTE_RETURN_IF_ERROR(ReadFixed64(&bits, what));
  std::memcpy(v, &bits, sizeof(bits));
  return Status::OK();
}

Status ByteReader::ReadBytes(size_t n, std::string_view* out,
                             const char* what) {
  if (input_.size() < n) return Truncated(what);
  *out = input_.substr(0, n);
  input_.remove_prefix(n);
  return Status::OK();
}

Status ByteReader::ReadLengthPrefixed(std::string_view* out, const char* what) {
  uint32_t n;
  BLOOMROUTE_RETURN_IF_ERROR(ReadFixed32(&n, what));
  return ReadBytes(n, out, what);
}

}  // namespace bloomroute
