package heap

// sizeClasses is the major heap's size-class table: the object stride of
// each class, in bytes. Up to 1024 bytes the classes grow by about 25% at a
// time (8-byte steps at the bottom, where small objects are most common);
// above that each class is the largest multiple of 8 that fits k objects in
// a 16 KiB block, for k = 12, 10, 9, 8, 7, 6, 5, 4, 3, and the last class is
// MaxSmallObject (two per block), so a block never wastes more than 2 KiB.
// This is the shape of SGen's ms_calculate_block_obj_sizes, written out.
var sizeClasses = [...]uint16{
	16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256,
	320, 384, 448, 512, 640, 768, 896, 1024,
	1360, 1632, 1816, 2048, 2336, 2728, 3272, 4096, 5456, 8000,
}

// NumSizeClasses is the number of major-heap size classes.
const NumSizeClasses = len(sizeClasses)

// classOfSize maps (size+7)/8 to the smallest class whose stride holds it.
var classOfSize = func() [MaxSmallObject/8 + 1]uint8 {
	var t [MaxSmallObject/8 + 1]uint8
	c := 0
	for words := range t {
		for int(sizeClasses[c]) < words*8 {
			c++
		}
		t[words] = uint8(c)
	}
	return t
}()

// SizeClasses returns the size-class table: the stride of each class in bytes.
func SizeClasses() []int {
	out := make([]int, len(sizeClasses))
	for i, s := range sizeClasses {
		out[i] = int(s)
	}
	return out
}

// SizeClass returns the class of an object of size bytes (16 ≤ size ≤
// MaxSmallObject) and its stride; ok is false for sizes outside that range.
func SizeClass(size int) (class, stride int, ok bool) {
	if size < HeaderSize || size > MaxSmallObject {
		return 0, 0, false
	}
	c := int(classOfSize[(size+7)/8])
	return c, int(sizeClasses[c]), true
}

// objectsPerBlock is how many objects of a class fit in one block.
func objectsPerBlock(class int) int { return BlockSize / int(sizeClasses[class]) }
