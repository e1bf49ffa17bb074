#include "lab/experiments/document.h"

#include <gtest/gtest.h>

namespace bloomroute::lab {
namespace {

LabReport Report(const std::string& name) {
  LabReport r;
  r.experiment = name;
  r.title = name + " title";
  return r;
}

class ComposeDocumentTest : public ::testing::Test {};

TEST_F(ComposeDocumentTest, SplicesReportsAtTheirMarkers) {
  const std::string doc = ComposeDocument(
      "# Lab\nintro\n<!-- lab:b -->\nabout b\n<!-- lab:a -->\nend\n",
      {Report("a"), Report("b")}, "bloomroute lab all --markdown-out x.md",
      2.5);
  EXPECT_NE(doc.find("`bloomroute lab all --markdown-out x.md`"),
            std::string::npos);
  EXPECT_NE(doc.find("it took 2.5 s"), std::string::npos);
  const size_t b = doc.find("## b title"), about = doc.find("about b");
  const size_t a = doc.find("## a title"), end = doc.find("end\n");
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(a, std::string::npos);
  EXPECT_LT(doc.find("intro"), b);
  EXPECT_LT(b, about);
  EXPECT_LT(about, a);
  EXPECT_LT(a, end);
  EXPECT_EQ(doc.find("<!-- lab:"), std::string::npos);
}

TEST_F(ComposeDocumentTest, MissingAndUnplacedReports) {
  const std::string doc =
      ComposeDocument("<!-- lab:gone -->\ntext\n", {Report("extra")}, "cmd", 1);
  EXPECT_NE(doc.find("(experiment `gone` was not run)"), std::string::npos);
  EXPECT_GT(doc.find("## extra title"), doc.find("text"));
}

}  // namespace
}  // namespace bloomroute::lab
