// RevokeCert (tools/certs.h): the CA's certificate revocation list.
//
// One list per CA, version 2 (RFC 5280), signed with the CA's key (SHA-256).
// Each revoke reads the list there is (checked against the CA: a list it
// did not sign is not extended), adds the serial number, sets thisUpdate to
// now and nextUpdate to the validity's end, and signs it anew. OpenSSL on
// the servers keeps the newest list of an issuer (by thisUpdate), so a
// reloaded list replaces the earlier one.
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <ctime>
#include <filesystem>
#include <string>
#include <vector>

#include "tools/certs.h"
#include "tools/internal/cert_files.h"

namespace bloomroute {
namespace {

using cert_internal::BioPtr;
using cert_internal::Ca;
using cert_internal::CrlPtr;
using cert_internal::OpensslError;
using cert_internal::X509Ptr;

std::string PathIn(const std::string& dir, const std::string& file) {
  if (file.find('/') != std::string::npos) return file;
  return (std::filesystem::path(dir) / file).string();
}

// The list at `path`, or a new empty one of the CA when there is none.
StatusOr<CrlPtr> ReadOrNewCrl(const std::string& path, const Ca& ca) {
  StatusOr<std::string> pem = cert_internal::ReadBoundedFile(
      path, kMaxCrlFileBytes, "kMaxCrlFileBytes");
  if (pem.status().IsNotFound()) {
    CrlPtr crl(X509_CRL_new());
    if (crl == nullptr || X509_CRL_set_version(crl.get(), 1) != 1 ||
        X509_CRL_set_issuer_name(crl.get(),
                                 X509_get_subject_name(ca.cert.get())) != 1) {
      return Status::IOError("cannot make a revocation list: " +
                             OpensslError());
    }
    return crl;
  }
  BLOOMROUTE_RETURN_IF_ERROR(pem.status());
  BioPtr bio(BIO_new_mem_buf(pem->data(), static_cast<int>(pem->size())));
  CrlPtr crl(PEM_read_bio_X509_CRL(bio.get(), nullptr, nullptr, nullptr));
  if (crl == nullptr) {
    return Status::Corruption(
        path + " is not a PEM revocation list: " + OpensslError());
  }
  EVP_PKEY* ca_key = X509_get0_pubkey(ca.cert.get());
  if (ca_key == nullptr || X509_CRL_verify(crl.get(), ca_key) != 1) {
    OpensslError();  // clear the queue
    return Status::Corruption(path + " is not a revocation list of the CA");
  }
  return crl;
}

// Whether `crl` lists `serial` already.
bool Lists(X509_CRL* crl, const ASN1_INTEGER* serial) {
  STACK_OF(X509_REVOKED)* revoked = X509_CRL_get_REVOKED(crl);
  for (int i = 0; i < sk_X509_REVOKED_num(revoked); ++i) {
    const X509_REVOKED* r = sk_X509_REVOKED_value(revoked, i);
    if (ASN1_INTEGER_cmp(X509_REVOKED_get0_serialNumber(r), serial) == 0) {
      return true;
    }
  }
  return false;
}

Status AddSerial(X509_CRL* crl, const ASN1_INTEGER* serial, ASN1_TIME* now) {
  X509_REVOKED* revoked = X509_REVOKED_new();
  if (revoked == nullptr ||
      X509_REVOKED_set_serialNumber(revoked,
                                    const_cast<ASN1_INTEGER*>(serial)) != 1 ||
      X509_REVOKED_set_revocationDate(revoked, now) != 1 ||
      X509_CRL_add0_revoked(crl, revoked) != 1) {
    X509_REVOKED_free(revoked);
    return Status::IOError("cannot add to the revocation list: " +
                           OpensslError());
  }
  return Status::OK();
}

}  // namespace

StatusOr<std::vector<std::string>> RevokeCert(const CertOptions& options,
                                              const std::string& cert_file) {
  BLOOMROUTE_RETURN_IF_ERROR(options.validity.Validate());
  BLOOMROUTE_ASSIGN_OR_RETURN(
      Ca ca, cert_internal::LoadCa(options.CaCertPath(), options.CaKeyPath()));
  const std::string crl_path = PathIn(options.certs_dir, kCrlFile);
  BLOOMROUTE_ASSIGN_OR_RETURN(CrlPtr crl, ReadOrNewCrl(crl_path, ca));
  struct AsnTime {
    ASN1_TIME* t = ASN1_TIME_new();
    ~AsnTime() { ASN1_TIME_free(t); }
  } now, next;
  if (now.t == nullptr || next.t == nullptr ||
      ASN1_TIME_set(now.t, std::time(nullptr)) == nullptr ||
      ASN1_TIME_set(next.t, CertClock::to_time_t(options.validity.not_after)) ==
          nullptr) {
    return Status::IOError("cannot set the list's times: " + OpensslError());
  }
  if (!cert_file.empty()) {
    const std::string path = PathIn(options.certs_dir, cert_file);
    BLOOMROUTE_ASSIGN_OR_RETURN(X509Ptr cert,
                                cert_internal::ReadCertFile(path));
    EVP_PKEY* ca_key = X509_get0_pubkey(ca.cert.get());
    if (ca_key == nullptr || X509_verify(cert.get(), ca_key) != 1) {
      OpensslError();  // clear the queue
      return Status::InvalidArgument(path + " was not signed by " +
                                     options.CaCertPath());
    }
    if (X509_cmp(cert.get(), ca.cert.get()) == 0) {
      return Status::InvalidArgument(
          path + " is the CA's own certificate: make a new CA instead");
    }
    const ASN1_INTEGER* serial = X509_get0_serialNumber(cert.get());
    if (!Lists(crl.get(), serial)) {
      BLOOMROUTE_RETURN_IF_ERROR(AddSerial(crl.get(), serial, now.t));
    }
  }
  if (X509_CRL_set1_lastUpdate(crl.get(), now.t) != 1 ||
      X509_CRL_set1_nextUpdate(crl.get(), next.t) != 1 ||
      X509_CRL_sort(crl.get()) != 1 ||
      X509_CRL_sign(crl.get(), ca.key.get(), EVP_sha256()) <= 0) {
    return Status::IOError("cannot sign the revocation list: " +
                           OpensslError());
  }
  BioPtr out(BIO_new(BIO_s_mem()));
  if (out == nullptr || PEM_write_bio_X509_CRL(out.get(), crl.get()) != 1) {
    return Status::IOError("cannot write the revocation list: " +
                           OpensslError());
  }
  char* data = nullptr;
  const long bytes = BIO_get_mem_data(out.get(), &data);  // NOLINT
  BLOOMROUTE_RETURN_IF_ERROR(cert_internal::WriteFileAtomically(
      {crl_path, std::string(data, static_cast<size_t>(bytes)), 0644},
      /*overwrite=*/true));
  return std::vector<std::string>{crl_path};
}

}  // namespace bloomroute
